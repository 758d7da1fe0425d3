#!/bin/bash
# v24 call 8 (H100): #2 f16's core on stream-K warp-specialised tiles (the last 229 tiles' k-tiles dealt out to 132 CTAs,
# or only the last partial wave's 97 tiles cut into 2 or 3 k-slices), against the heuristic's persistent tile and its
# non-persistent twin (tccg.tile_probe, round-robin): the persistent grid's 97 CTAs of 3 tiles against 35 of 2
# (call 4) leave SMs idle for its last 6-10 us.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 300 python3 -m tccg.tile_probe --cases 2 --dtype f16 --paths "" --rounds 7 \
  --tiles "256x32x64/4@64x32wx:l128,256x32x64/4@64x32wx:k132:l128,256x32x64/4@64x32wx:k132:s2:l128,256x32x64/4@64x32wx:k132:s3:l128,128x32x64/4@64x32wx:k132:l128" \
  2>&1 | tee "$out/probe.txt"
