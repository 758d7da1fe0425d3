#!/bin/bash
# v18 call 6 (H100): the f32 compute-bound core at 4 CTAs per SM (128 registers, no spills under NVRTC 13.0:
# 16 warps an SM instead of 12; ncu_stalls/ had the schedulers idle 15% of the cycles) against the heuristic's
# 3 CTAs per SM. Files under $OUT/call6.
set -u
export PYTHONUNBUFFERED=1
O=$OUT/call6; mkdir -p $O
timeout 200 python3 -m tccg.tile_probe --cases 20,21,28,12 --dtype f32 --rounds 3 --tiles \
  "128x64x16/4@8x8s:b4:k528,128x64x16/3@8x8s:b4:k528" 2>&1 | tee $O/probe.txt | grep -v "^compiling"
