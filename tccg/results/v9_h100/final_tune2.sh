#!/bin/bash
# Session 6, final code: GPU fuzz, then heuristic vs tuned over the 48 (f16).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
GETTPY_GPU_FUZZ_N=150 timeout 100 python3 -m pytest tests/test_gpu_fuzz.py -m gpu -q -s 2>&1 | tail -3 | tee $OUT/gpu_fuzz.log
timeout 420 python3 -m tccg --tune --cases 1-48 --dtype f16 --order F --no-peers --no-plots --tune-samples 16 --tune-top 4 --out $OUT/tune 2>&1 | grep -v "tccg gpu\|tune:" > $OUT/tune_all.txt
grep -i "autotuning\|geomean" $OUT/tune_all.txt
