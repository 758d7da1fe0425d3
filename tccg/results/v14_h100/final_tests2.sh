#!/bin/bash
# Session 11, final code: every other gpu-marked test, the GPU fuzz of 150 random contractions, then
# heuristic vs tuned over the 48 in f16.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 300 python3 -m pytest tests -m gpu -q -p no:cacheprovider --ignore=tests/test_gpu.py --ignore=tests/test_einsum_cases.py \
  --deselect tests/test_gpu_fuzz.py::test_gpu_fuzz_random_contractions 2>&1 | tail -3 | tee $OUT/gpu_tests_part2.log
GETTPY_GPU_FUZZ_N=150 timeout 80 python3 -m pytest tests/test_gpu_fuzz.py -m gpu -q -s -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/gpu_fuzz.log
timeout 190 python3 -m tccg --tune --cases 1-48 --dtype f16 --order F --no-peers --no-plots --tune-samples 16 --tune-top 4 --out $OUT/tune 2>&1 | grep -v "tccg gpu\|tune:" > $OUT/tune_f16.txt
grep -i "autotuning\|geomean" $OUT/tune_f16.txt
echo "== summary"; tail -1 $OUT/gpu_tests_part2.log; grep "checked" $OUT/gpu_fuzz.log; grep -i autotuning $OUT/tune_f16.txt
