#!/bin/bash
# Session 6, eighth device call: registers capped for 2-4 CTAs per SM (__launch_bounds__ min blocks).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 150 python3 -m tccg.tile_probe --dtype f32 --cases 12,20,21,28 --tiles 128x128x16/3@8x8s:b2 2>&1 | tee $OUT/probe_f32_b2.txt
timeout 100 python3 -m tccg.tile_probe --dtype f32 --cases 15,16,31,33,3 \
  --tiles 64x128x16/3@4x8s:b3,128x64x16/3@8x4s:b3,64x64x8/4@4x4s:b4,24x256x16/3@3x8s:b3 2>&1 | tee $OUT/probe_f32_b3.txt
timeout 100 python3 -m tccg.tile_probe --dtype f16 --cases 33,36,6,8 \
  --tiles 128x128x32/2@64x32p:b3,32x256x32/2@32x32:b4 2>&1 | tee $OUT/probe_f16_b.txt
