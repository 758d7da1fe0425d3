#!/bin/bash
# v18 call 2 (H100): f32 #2 on deeper / wave-filling 24-wide simt tiles; f32 #14's split core with stream-K,
# bk 8 and other slice counts. Files under $OUT/call2.
set -u
export PYTHONUNBUFFERED=1
O=$OUT/call2; mkdir -p $O
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv | tee $O/gpu.txt
timeout 150 python3 -m tccg.tile_probe --cases 2 --dtype f32 --rounds 5 --tiles \
  "24x128x16/6@12x4s:l128,24x128x16/8@12x4s:l128,24x704x16/4@12x4s:l128,24x704x16/3@12x4s:l128,24x352x16/4@6x4s:l128,32x128x32/4@4x4s:l128,32x128x16/6@4x4s:l128,32x128x16/8@4x4s:l128,24x128x16/6@12x4sp:l128,24x128x32/4@12x4s:l128,24x64x16/8@12x4s:l128,24x256x16/6@12x4s:l128" \
  2>&1 | tee $O/probe_f32_2.txt | grep -v "^compiling"
timeout 150 python3 -m tccg.split_probe --cases 14 --dtype f32 --splits c/26,c/78 \
  --tiles "64x64x16/3@8x8s:b6,64x64x16/3@8x8s:b6:k792,64x64x8/4@8x8s:b6,64x64x8/4@8x8s:b6:k792" 2>&1 | tee $O/split_14.txt
