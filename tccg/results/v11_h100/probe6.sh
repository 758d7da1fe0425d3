#!/bin/bash
# Session 8 call 6: #14 f32 split core variants (CTAs per SM, raster groups, slices), #20 f32 stream-K
# CTA counts and stages.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
python3 -m tccg.split_probe --dtype f32 --cases 14 --splits c/39,c/52 --tiles 64x64x16/3@8x8s:b5,64x64x16/3@8x8s:g4:b6,64x64x16/3@8x8s:g16:b6,64x64x16/2@8x8s:b6,64x64x16/3@8x8s:g32:b6 2>&1 | tee $OUT/split14.txt
python3 -m tccg.tile_probe --dtype f32 --cases 20 --tiles 128x64x16/3@8x8s:b3:k396,128x64x16/4@8x8s:b3:k264,128x64x16/4@8x8s:b3:k132,128x64x16/4@8x8s:g32:b3:k396 2>&1 | tee $OUT/tiles20.txt
