#!/bin/bash
# Session 9, call 6: #12 f16 -> f32 with and without the cluster tile (end to end it was 0.459 -> 0.462 ms),
# and f32 #2's narrow simt tile under more CTAs per SM, deeper pipelines and wider thread tiles (torch
# 0.065 ms, ours 0.070).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
python3 -m tccg.tile_probe --cases 12 --dtype f16f32 --tiles "128x256x64/4@64x256wt" 2>&1 | tee $OUT/probe_12_f16f32.txt
python3 -m tccg.tile_probe --cases 12 --dtype f16 --tiles "128x256x64/4@64x256wt" 2>&1 | tee $OUT/probe_12_f16.txt
python3 -m tccg.tile_probe --cases 2 --dtype f32 --tiles "32x128x32/3@4x4s:b3,32x128x32/4@4x4s,32x128x32/4@4x4s:b2,32x256x32/3@4x8s,32x64x32/4@4x4s:b4,32x128x64/2@4x4s,32x128x32/3@8x2s:b3" 2>&1 | tee $OUT/probe_2_f32.txt
