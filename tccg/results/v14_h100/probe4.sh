#!/bin/bash
# Session 11, call 4: #2's waves. The heuristic's 32 x 256 tile makes 361 CTAs of one per SM (2.73 waves);
# 32 x 176 (91 KB, two per SM) makes 525 = 1.99 waves of 264, 32 x 240 385 = 2.92 waves. f32: 32 x 128 (3 per
# SM, 1.82 waves) against 32 x 176 (2 per SM, 1.99), 144, 96. Then #2 end to end with torch (no cuTENSOR).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 100 python3 -m tccg.tile_probe --cases 2 --dtype f16 --rounds 3 --tiles "32x176x64/3@32x16,32x176x64/3@32x16:b2,32x240x64/3@32x24,32x240x64/3@32x16,P" 2>&1 | tee $OUT/probe.txt
timeout 100 python3 -m tccg.tile_probe --cases 2 --dtype f32 --rounds 3 --tiles "32x176x32/3@4x4s,32x176x32/3@4x4s:b2,32x144x32/3@4x4s,32x96x32/3@4x4s,32x128x32/3@4x4s:b4" 2>&1 | tee -a $OUT/probe.txt
timeout 200 python3 -m tccg --cases 2,12 --dtype f16,f32 --order F --no-plots --out /tmp/e2e 2>&1 | tail -15 | tee $OUT/e2e.txt
echo "== summary"; grep " ms " $OUT/probe.txt; grep -i "^ *2 \|^ *12 \|geomean" $OUT/e2e.txt | head
