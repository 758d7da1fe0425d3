#!/bin/bash
# v26 final tests (H100), on the final code (balanced columns an option, plain D stores): the persistent and cluster GPU
# tests, with test_persistent_balanced_columns, and the wgmma tests.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 500 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py tests/test_gpu_cluster.py \
  tests/test_gpu_wgmma.py 2>&1 | tail -6 | tee "$out/tests.txt"
