#!/bin/bash
# v29 final tests (H100), on the final code: the persistent, cluster (share_a's with them), half-atom and wgmma GPU tests
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 580 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py tests/test_gpu_cluster.py \
  tests/test_gpu_half_atom.py tests/test_gpu_wgmma.py 2>&1 | tail -6 | tee "$out/tests.txt"
