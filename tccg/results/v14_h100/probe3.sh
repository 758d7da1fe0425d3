#!/bin/bash
# Session 11, call 3: does TMA read #2's big input fast when its boxes are contiguous rows? The kernel's n
# modes in the order (c, a) (tile_probe --order): B's n is then one stride term (rows of 624 bytes, back to
# back) and D's n two terms (scattered 2-byte stores, D is 4.4 of the 62 MB). Against the planner's order.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 60 python3 -m tccg.tile_probe --cases 2 --dtype f16 --rounds 3 --tiles "128x104x64/6@64x104wx" 2>&1 | sed "s/^/planner /" | tee $OUT/probe.txt
T="128x104x64/6@64x104wt,128x128x64/6@64x128wt,128x192x64/5@64x192wt,128x256x64/4@64x256wt,128x128x64/5@64x128wtp,128x64x64/8@64x64wtp,128x128x64/6@64x128wx"
timeout 120 python3 -m tccg.tile_probe --cases 2 --dtype f16 --rounds 3 --order "n=c,a" --tiles "$T" 2>&1 | sed "s/^/n=c,a /" | tee -a $OUT/probe.txt
echo "== summary"; grep " ms \|Error" $OUT/probe.txt
