#!/bin/bash
# Session 8, final code: heuristic vs tuned over the 48 for one dtype ($1: f16 or f32; the f32 heuristics changed).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 290 python3 -m tccg --tune --cases 1-48 --dtype ${1:-f16} --order F --no-peers --no-plots --tune-samples 16 --tune-top 4 --out $OUT/tune 2>&1 | grep -v "tccg gpu\|tune:" > $OUT/tune_${1:-f16}.txt
grep -i "autotuning\|geomean" $OUT/tune_${1:-f16}.txt
