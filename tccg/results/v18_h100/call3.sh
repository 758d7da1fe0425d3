#!/bin/bash
# v18 call 3 (H100): f32 #2 and #1 on one wave of wide 24-row simt tiles (one CTA per SM), by bk, stages,
# prefetch and thread tile. Files under $OUT/call3.
set -u
export PYTHONUNBUFFERED=1
O=$OUT/call3; mkdir -p $O
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv | tee $O/gpu.txt
timeout 150 python3 -m tccg.tile_probe --cases 2 --dtype f32 --rounds 5 --tiles \
  "24x704x16/3@12x4s:l128,24x704x16/2@12x4s:l128,24x704x8/4@12x4s:l128,24x704x8/6@12x4s:l128,24x704x16/3@12x4s,24x704x16/3@12x4s:l256,24x704x16/3@6x8s:l128,24x768x16/3@12x4s:l128,24x384x16/3@12x4s:l128,24x704x16/4@12x4s:l128" \
  2>&1 | tee $O/probe_f32_2.txt | grep -v "^compiling"
timeout 100 python3 -m tccg.tile_probe --cases 1 --dtype f32 --rounds 5 --tiles \
  "24x768x16/3@12x4s,24x768x16/3@12x4s:l128,24x768x16/4@12x4s,24x768x8/4@12x4s,24x704x16/3@12x4s" \
  2>&1 | tee $O/probe_f32_1.txt | grep -v "^compiling"
