#!/bin/bash
# Session 7, call 7: f32 split cores of #13 / #14 on 8x8-per-thread tiles of 128 threads (3 CTAs per SM)
# against the heuristic's 128x64 of 8x4; and the test_tuner failure seen in call 6, in full.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 120 python3 -m pytest -x -q tests/test_tuner.py -k cpu_executor 2>&1 | tail -40 > $OUT/tuner_fail.txt
python3 -m tccg.split_probe --dtype f32 --cases 13 --splits c/74,c/37,c/148 \
  --tiles "128x64x16/4@8x8s:b3,64x128x16/4@8x8s:b3,128x64x16/3@8x4s" 2>&1 | tee $OUT/split_13.txt
python3 -m tccg.split_probe --dtype f32 --cases 14 --splits c/26,c/52,c/13 \
  --tiles "128x64x16/4@8x8s:b3,64x128x16/4@8x8s:b3,128x64x16/3@8x4s" 2>&1 | tee $OUT/split_14.txt
grep -E "^E |Error|assert" $OUT/tuner_fail.txt | head -20
