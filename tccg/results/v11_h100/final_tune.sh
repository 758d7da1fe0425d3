#!/bin/bash
# Session 8, final code: heuristic vs tuned over the 48, f16 and f32 (the f32 heuristics changed).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 280 python3 -m tccg --tune --cases 1-48 --dtype f16 --order F --no-peers --no-plots --tune-samples 16 --tune-top 4 --out $OUT/tune 2>&1 | grep -v "tccg gpu\|tune:" > $OUT/tune_f16.txt
grep -i "autotuning\|geomean" $OUT/tune_f16.txt
timeout 300 python3 -m tccg --tune --cases 1-48 --dtype f32 --order F --no-peers --no-plots --tune-samples 16 --tune-top 4 --out $OUT/tune 2>&1 | grep -v "tccg gpu\|tune:" > $OUT/tune_f32.txt
grep -i "autotuning\|geomean" $OUT/tune_f32.txt
