#!/bin/bash
# Session 8, final code: every gpu-marked test but the fuzz (within one call's limit), then a GPU fuzz
# of 150 random contractions.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 480 python3 -m pytest tests -m gpu -q -p no:cacheprovider \
  --deselect tests/test_gpu_fuzz.py::test_gpu_fuzz_random_contractions 2>&1 | tail -6 | tee $OUT/gpu_tests_final.log
GETTPY_GPU_FUZZ_N=150 timeout 100 python3 -m pytest tests/test_gpu_fuzz.py -m gpu -q -s -p no:cacheprovider 2>&1 | tail -4 | tee $OUT/gpu_fuzz.log
