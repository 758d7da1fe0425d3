#!/bin/bash
# Session 8 call 3: #2 / #1 tiles (f16, f32), #13 / #14 f32 split cores on 64x64 tiles, torch's #2 layout.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$PWD
python3 tccg/results/v11_h100/call3/torch_layout.py 2,1 2>&1 | tee $OUT/torch_layout.txt
python3 -m tccg.tile_probe --dtype f16 --cases 2 --tiles 32x256x64/3@32x64,32x256x64/3@32x128,32x256x32/4@32x32,32x256x64/3@32x32p,32x256x32/6@32x32,64x256x64/3@32x64 2>&1 | tee $OUT/tiles2_f16.txt
python3 -m tccg.tile_probe --dtype f32 --cases 2,1 --tiles 32x128x32/3@4x4s,32x128x32/4@4x4s,32x256x32/3@4x8s,32x128x32/3@2x8s,24x128x32/3@3x4s,32x64x32/4@4x2s,32x128x16/4@4x4s 2>&1 | tee $OUT/tiles2_f32.txt
python3 -m tccg.split_probe --dtype f32 --cases 14 --splits c/52,c/78,c/104,c/156 --tiles 64x64x16/3@8x8s:b6,64x64x16/3@8x8s:b6:k792 2>&1 | tee $OUT/split14.txt
python3 -m tccg.split_probe --dtype f32 --cases 13 --splits c/74,c/148 --tiles 64x64x16/3@8x8s:b6:k792,64x64x16/3@8x8s:b6:k660 2>&1 | tee $OUT/split13.txt
