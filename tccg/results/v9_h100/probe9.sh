#!/bin/bash
# Session 6, ninth device call: the register caps (TileConfig.min_blocks) as the heuristic now sets them,
# against min_blocks 1, on the cases not probed before.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 120 python3 -m tccg.tile_probe --dtype f32 --cases 32,35,38,34,36,17,18 \
  --tiles 64x64x8/4@4x4s:b1,64x128x16/3@4x8s:b1 2>&1 | grep -v Error | tee $OUT/probe_caps.txt
timeout 150 python3 -m tccg.split_probe --dtype f32 --cases 13,14 --tiles 128x64x16/3@8x4s:b3 2>&1 | grep -v Error | tee $OUT/split_caps.txt
timeout 100 python3 -m tccg.tile_probe --dtype f32 --cases 22,24 --tiles 128x128x16/3@8x8s:b1 2>&1 | tee -a $OUT/probe_caps.txt
