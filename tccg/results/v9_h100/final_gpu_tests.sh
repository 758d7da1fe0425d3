#!/bin/bash
# Session 6, final code: tests/test_gpu.py on the H100 (within one call's limit).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 420 python3 -m pytest tests/test_gpu.py tests/test_gpu_wgmma.py -m gpu -q -x -p no:cacheprovider 2>&1 | tail -4 | tee $OUT/gpu_tests_final.log
