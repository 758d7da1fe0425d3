#!/bin/bash
# Session 7, call 12: #14 f32 with its (existing) pack of A laid out m-first (the split core then reads A
# as vectors), against the headline's k-first pack (0.658 ms in headline/).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
python3 -m tccg.split_probe --dtype f32 --cases 14 --splits c/26,c/52 2>&1 | tee $OUT/split_14.txt
python3 -m tccg --cases 13,14 --dtype f32 --order F --no-peers --no-plots --out $OUT/e2e 2>&1 | grep -E "^ +1[34] " | tee $OUT/e2e.txt
