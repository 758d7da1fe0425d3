#!/bin/bash
# Session 13, third call: the tuner timing its candidates as CUDA-graph replays (gettpy.tune._device_ms);
# its GPU test, then heuristic vs tuned over the 48 in f16 (as call2 / v14's final_tests2.sh), then the GPU
# fuzz of 150 random contractions.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 90 python3 -m pytest tests/test_gpu_tune.py tests/test_tuner.py -m gpu -q -p no:cacheprovider 2>&1 | tail -n 3 | tee $OUT/gpu_tests.log
timeout 260 python3 -m tccg --tune --cases 1-48 --dtype f16 --order F --no-peers --no-plots --tune-samples 16 --tune-top 4 --out $OUT/tune 2>&1 | grep -v "tccg gpu\|tune:" > $OUT/tune_f16.txt
GETTPY_GPU_FUZZ_N=150 timeout 100 python3 -m pytest tests/test_gpu_fuzz.py -m gpu -q -s -p no:cacheprovider 2>&1 | tail -n 3 | tee $OUT/gpu_fuzz.log
grep -i "autotuning\|geomean" $OUT/tune_f16.txt
