#!/bin/bash
# v21 call 5 (H100): #2's core on two warp-specialised CTAs per SM (:b2, about 100 KB of shared memory each:
# two loading warpgroups an SM, twice the copies in flight), 128 x 32 (3 / 4 stages, persistent or not) and
# 256 x 32 (2 stages, not persistent), against the heuristic's one CTA of 256 x 32 x 4 stages; 7 rounds.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1
T="128x32x64/4@64x32wx:b2:l128,128x32x64/4@64x32wxp:b2:l128,128x32x64/3@64x32wxp:b2:l128,256x32x64/2@64x32wx:b2:l128"
for d in f16 f16f32; do
  echo "== #2 $d"; timeout 150 python3 -m tccg.tile_probe --cases 2 --dtype $d --rounds 7 --tiles "$T" 2>&1 | grep -v "^$"
done 2>&1 | tee "$out/probe_2_two_ctas.txt"
