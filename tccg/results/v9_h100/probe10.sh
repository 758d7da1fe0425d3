#!/bin/bash
# Session 6, tenth device call: f32 compute-bound cases with a k-major input under register caps.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 300 python3 -m tccg.tile_probe --dtype f32 --cases 12,21,23,26,28,29 \
  --tiles 128x128x8/4@8x8s:b2,128x128x8/3@8x8s:b2,128x64x16/3@8x4s:b3,128x64x16/3@8x4s:b2,128x128x4/4@8x8s:b2 2>&1 | grep -v Error | tee $OUT/probe_kmajor_caps.txt
