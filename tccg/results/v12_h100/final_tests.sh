#!/bin/bash
# Session 9, final code: every gpu-marked test in two calls ($1 = 1: test_gpu.py and test_einsum_cases.py;
# $1 = 2: every other file, then the GPU fuzz of 150 random contractions).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
if [ "$1" = 1 ]; then
  timeout 570 python3 -m pytest tests/test_gpu.py tests/test_einsum_cases.py -m gpu -q -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/gpu_tests_part1.log
else
  timeout 470 python3 -m pytest tests -m gpu -q -p no:cacheprovider --ignore=tests/test_gpu.py --ignore=tests/test_einsum_cases.py \
    --deselect tests/test_gpu_fuzz.py::test_gpu_fuzz_random_contractions 2>&1 | tail -3 | tee $OUT/gpu_tests_part2.log
  GETTPY_GPU_FUZZ_N=150 timeout 100 python3 -m pytest tests/test_gpu_fuzz.py -m gpu -q -s -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/gpu_fuzz.log
fi
