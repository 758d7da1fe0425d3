#!/bin/bash
# Session 8 call 7: f16 #13 / #14 split-K (3.06 / 3.34x floor in v10): slices and tiles.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
T=128x128x64/3@64x128w,128x64x64/4@64x64w,128x128x64/3@64x128w:k264,128x128x64/4@64x128w
python3 -m tccg.split_probe --dtype f16 --cases 13 --splits c/37,c/74,c/148 --tiles $T 2>&1 | tee $OUT/split13.txt
python3 -m tccg.split_probe --dtype f16 --cases 14 --splits c/26,c/39,c/52,c/78,c/104 --tiles $T 2>&1 | tee $OUT/split14.txt
