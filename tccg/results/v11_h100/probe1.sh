#!/bin/bash
# Session 8 call 1: #2 schedules (f16, f32), #13/#14 f32 split cores on 64x64 tiles, #20 f32 raster/stages.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
R=tccg/results/v11_h100/call1
python3 $R/probe2.py f16,f32 2>&1 | tee $OUT/probe2.txt
T=64x64x16/3@8x8s:b6,64x64x16/4@8x8s:b5,128x64x16/4@8x8s:b3
python3 -m tccg.split_probe --dtype f32 --cases 13 --splits c/37,c/74,c/148 --tiles $T 2>&1 | tee $OUT/split13.txt
python3 -m tccg.split_probe --dtype f32 --cases 14 --splits c/13,c/26,c/52 --tiles $T 2>&1 | tee $OUT/split14.txt
python3 -m tccg.tile_probe --dtype f32 --cases 20 --tiles 128x64x16/4@8x8s:g4:b3:k396,128x64x16/4@8x8s:g16:b3:k396,128x64x16/5@8x8s:b3:k396,128x64x16/4@8x8s:b3 2>&1 | tee $OUT/tiles20.txt
python3 -m tccg --cases 2,13,14 --dtype f16,f32 --no-plots --out /tmp/o 2>&1 | grep -v "tccg gpu" | tail -12 | tee $OUT/tccg.txt
