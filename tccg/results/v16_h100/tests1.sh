#!/bin/bash
# Session 13, final code: the gpu-marked tests of test_gpu.py and test_einsum_cases.py (run as one command
# in the last call, the same line as below).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 470 python3 -m pytest tests/test_gpu.py tests/test_einsum_cases.py -m gpu -q -p no:cacheprovider 2>&1 | tail -n 6 | tee $OUT/gpu_tests_part1.log
