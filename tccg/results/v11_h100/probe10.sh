#!/bin/bash
# Session 8 call 10: f16 #7 (K = 48: the heuristic's bk 32 zero-fills half its second k-tile; persistent
# 4-stage tiles were 11% faster in call 9): bk 16 and bk 48, persistent or not.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
python3 -m tccg.tile_probe --dtype f16 --cases 7 --tiles 32x256x16/3@32x32,32x256x16/4@32x32,32x256x48/2@32x32,32x256x48/2@32x32p,32x256x48/3@32x32p,32x256x32/4@32x32p 2>&1 | tee $OUT/tiles7.txt
python3 -m tccg.tile_probe --dtype f16 --cases 5 --tiles 32x256x16/3@32x32,32x256x16/4@32x32,32x256x32/4@32x32p 2>&1 | tee $OUT/tiles5.txt
