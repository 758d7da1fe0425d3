#!/bin/bash
# Session 7, call 6: the f32 suite with #15-#18 on 8x8-per-thread tiles; GPU tests of the f32 paths.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
python3 -m tccg --dtype f32 --order F --no-peers --no-plots --out $OUT/e2e 2>&1 | grep -E "^ +(1[2-9]|2[0-9]|30) |geomean" | tee $OUT/e2e.txt
timeout 300 python3 -m pytest -q tests/test_gpu.py tests/test_gpu_tune*.py tests/test_tuner.py -k "f32 or tune" 2>&1 | tail -2 | tee $OUT/gpu_tests.txt
