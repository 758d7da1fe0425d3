#!/bin/bash
# Session 10, call 10: f32 compute-bound simt tiles with more FMAs per shared load (16 x 8 thread tiles,
# 128 x 128 x 16, two CTAs of 128 threads per SM, with and without stream-K) against the heuristic's
# 128 x 64 8 x 8 tile (three CTAs per SM, stream-K), #20 and #12 f32, round-robin.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
T="128x128x16/4@16x8s:b2,128x128x16/4@16x8s:b2:k264,128x128x8/4@16x8s:b2:k264,128x128x16/4@8x16s:b2:k264,256x64x16/4@16x8s:b2:k264"
timeout 200 python3 -m tccg.tile_probe --cases 20,12 --dtype f32 --rounds 2 --tiles "$T" 2>&1 | tee $OUT/probe.txt
echo "== summary"; awk '/ ms /{print $1,$2,$3,$5,$6,$(NF-5),$NF}' $OUT/probe.txt
