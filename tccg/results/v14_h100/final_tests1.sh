#!/bin/bash
# Session 11, final code: the gpu-marked tests of test_gpu.py and test_einsum_cases.py.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 560 python3 -m pytest tests/test_gpu.py tests/test_einsum_cases.py -m gpu -q -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/gpu_tests_part1.log
