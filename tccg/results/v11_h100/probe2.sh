#!/bin/bash
# Session 8 call 2: #2 schedules (f16, f32; call 1's run of probe2.py lacked PYTHONPATH), #13/#14 f32
# split cores on 64x64 tiles with stream-K over 6 CTAs per SM.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$PWD
python3 tccg/results/v11_h100/call1/probe2.py f16,f32 2>&1 | tee $OUT/probe2.txt
T=64x64x16/3@8x8s:b6:k792,64x64x16/3@8x8s:b6:k396,64x64x16/4@8x8s:b5:k660
python3 -m tccg.split_probe --dtype f32 --cases 13 --splits c/37,c/74,c/148 --tiles $T 2>&1 | tee $OUT/split13.txt
python3 -m tccg.split_probe --dtype f32 --cases 14 --splits c/13,c/26,c/52 --tiles $T 2>&1 | tee $OUT/split14.txt
python3 -m tccg --cases 2 --dtype f16,f32 --no-plots --out /tmp/o 2>&1 | grep -v "tccg gpu" | tee $OUT/tccg.txt | grep -E "^ *2 |#2|abc-dca"
