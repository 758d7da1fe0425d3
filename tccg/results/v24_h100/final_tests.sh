#!/bin/bash
# v24 final code (H100): the persistent tests (the tail-column test's 128 x 240 case now without the C read that overflowed
# shared memory) and the cluster tests.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py tests/test_gpu_cluster.py 2>&1 | tail -3 \
  | tee "$out/tests.txt"
