#!/bin/bash
# v23 final code (H100), after the launcher's last edit (the TMA-store map appended only for tma_store tiles): the GPU
# tests of the TMA paths (wgmma, persistent with the TMA stores, cluster).
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 400 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_wgmma.py tests/test_gpu_persistent.py tests/test_gpu_cluster.py \
  2>&1 | tail -4 | tee "$out/tests.txt"
