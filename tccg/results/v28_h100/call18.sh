#!/bin/bash
# v28 call 18 (H100): the along-m and rest_last GPU tests again, with the vec-2 / vec-4 cases and Partition.traded
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py tests/test_gpu_wgmma.py \
  -k "along_m or rest_last or chunked or swap" 2>&1 | tail -6 | tee "$out/tests.txt"
