#!/bin/bash
# Session 11, call 12: the chunked epilogue now stages in the A buffer of the tile's last stage (no smem of
# its own): persistent 256 x 160 TMA tiles keep their 4 stages (#12), 128 x 240 (#20); round-robin against
# the heuristic's one-tile CTAs, f16 and f16 -> f32.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 150 python3 -m tccg.tile_probe --cases 12 --dtype f16 --rounds 4 --tiles "256x160x64/4@64x160wtp:c2:e,256x160x64/4@64x160wtp:g4:c2:e" 2>&1 | tee $OUT/probe.txt
timeout 100 python3 -m tccg.tile_probe --cases 12 --dtype f16f32 --rounds 3 --tiles "256x160x64/4@64x160wtp:c2:e" 2>&1 | tee -a $OUT/probe.txt
timeout 150 python3 -m tccg.tile_probe --cases 20 --dtype f16 --rounds 4 --tiles "128x240x64/4@64x240wtp:e,128x240x64/4@64x240wtp:c2:e" 2>&1 | tee -a $OUT/probe.txt
timeout 100 python3 -m tccg.tile_probe --cases 20 --dtype f16f32 --rounds 3 --tiles "128x240x64/4@64x240wtp:e" 2>&1 | tee -a $OUT/probe.txt
echo "== summary"; grep " ms \|Error" $OUT/probe.txt
