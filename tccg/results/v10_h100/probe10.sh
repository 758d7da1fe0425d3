#!/bin/bash
# Session 7, call 10: #2 (abc-dca-bd: a 57.6 MB k-major input, N = 92352 over 361 tiles of 256, 2.7 per
# SM) on narrower tiles (more CTAs, balanced over the SMs), f16 and f32.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
python3 -m tccg.tile_probe --cases 2 --dtype f16 --tiles \
  "32x128x64/3@32x32,32x128x64/4@32x32,32x64x64/4@32x32,32x256x64/4@32x32,32x128x32/4@32x32" 2>&1 | tee $OUT/probe_2_f16.txt
python3 -m tccg.tile_probe --cases 2 --dtype f32 --tiles \
  "24x64x16/4@3x2s,24x128x32/3@3x4s,24x128x16/6@3x4s,24x256x16/3@3x8s,24x128x32/4@3x4s" 2>&1 | tee $OUT/probe_2_f32.txt
