#!/bin/bash
# Session 8, final code: the gpu-marked tests final_tests.sh's 480 s limit cut off (it stopped inside
# test_gpu_wgmma.py, ~950 of 1186, no failure up to there): test_gpu_wgmma.py and the files after it.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 560 python3 -m pytest tests/test_gpu_wgmma.py tests/test_permute.py tests/test_review_regressions.py \
  tests/test_schedule.py -m gpu -q -p no:cacheprovider 2>&1 | tail -4 | tee $OUT/gpu_tests_rest.log
