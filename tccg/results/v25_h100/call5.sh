#!/bin/bash
# v25 call 5 (H100): #20-#30's 128 x 240 tiles against 256-row ones (v25 calls 2-4: 128-row tiles wait on their loads;
# 256 x 160 runs #12's k-tiles at the tensor pipe's rate). Core kernels of #20, #25 (f16) and #20 (f16->f32) through
# tccg.tile_probe, round-robin, each checked against float64.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
T="H,128x240x64/4@64x240wtp,256x160x64/4@64x160wtp:g4:c2:e,256x160x64/4@64x160wtp:g8:e,256x144x64/4@64x144wtp:g4:c2,256x128x64/4@64x128wtp:g4:c2"
timeout 280 python3 -m tccg.tile_probe --cases 20,25 --dtype f16 --rounds 5 --tiles "$T" 2>&1 | tee "$out/f16.txt"
timeout 200 python3 -m tccg.tile_probe --cases 20 --dtype f16f32 --rounds 5 --tiles "$T" 2>&1 | tee "$out/f16f32.txt"
