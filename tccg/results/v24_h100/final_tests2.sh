#!/bin/bash
# v24 after the review mends (H100): the tail-column GPU tests, now also asserting the narrow wgmma in the kernel's PTX.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py -k "tail_column" 2>&1 | tail -3 \
  | tee "$out/tests.txt"
