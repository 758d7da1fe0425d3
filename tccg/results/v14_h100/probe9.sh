#!/bin/bash
# Session 11, call 9: with prefetch.tensormap in, are persistent TMA tiles (direct stores of D) still slower
# than the heuristic's one-tile CTAs on #12 / #20 (v13: #12 0.444 vs 0.417 ms)?
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 150 python3 -m tccg.tile_probe --cases 12 --dtype f16 --rounds 3 --tiles "256x160x64/4@64x160wtp:c2,256x160x64/4@64x160wtp:g2:c2,128x256x64/4@64x256wtp:c2" 2>&1 | tee $OUT/probe.txt
timeout 150 python3 -m tccg.tile_probe --cases 20 --dtype f16 --rounds 3 --tiles "128x240x64/4@64x240wtp,128x240x64/4@64x240wtp:c2" 2>&1 | tee -a $OUT/probe.txt
echo "== summary"; grep " ms " $OUT/probe.txt
