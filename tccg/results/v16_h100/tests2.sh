#!/bin/bash
# Session 13, final code: every gpu-marked test but test_gpu.py, test_einsum_cases.py and the fuzz (run in
# call3), as v14's final_tests2.sh.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 420 python3 -m pytest tests -m gpu -q -p no:cacheprovider --ignore=tests/test_gpu.py --ignore=tests/test_einsum_cases.py \
  --deselect tests/test_gpu_fuzz.py::test_gpu_fuzz_random_contractions 2>&1 | tail -n 8 | tee $OUT/gpu_tests_part2.log
