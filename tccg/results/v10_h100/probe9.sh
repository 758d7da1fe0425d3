#!/bin/bash
# Session 7, call 9: (1) f16 #15-#18 (memory-bound, N or M = 296/312: three 128-wide tile columns re-read
# the big input) on 256-wide wgmma tiles; (2) f16 #13 / #14 split cores on them; (3) f32 #20 / #12 with and
# without stream-K on the final 128x64 8x8 tile.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
python3 -m tccg.tile_probe --cases 15-18 --dtype f16 --tiles \
  "128x256x64/3@64x256w,128x256x64/2@64x256w,64x256x64/4@64x256w,256x128x64/3@64x128w" 2>&1 | tee $OUT/probe_f16_15_18.txt
python3 -m tccg.split_probe --dtype f16 --cases 13,14 --tiles "128x256x64/3@64x256w,128x256x64/2@64x256w" 2>&1 | tee $OUT/split_f16.txt
python3 -m tccg.tile_probe --cases 20,12 --dtype f32 --tiles "128x64x16/4@8x8s:b3" 2>&1 | tee $OUT/probe_f32_sk.txt
