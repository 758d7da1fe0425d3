#!/bin/bash
# Session 9, call 12: 128 x 192 TMA tiles on #12 / #20 f16 (27 tile columns of 192 cover 5136 / 5184 with less
# padding than 21 of 256; 8.2-8.4 waves), 4 and 5 stages, against the heuristic's tile.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 90 python3 -m tccg.tile_probe --cases 12,20 --dtype f16 --tiles "128x192x64/4@64x192wt,128x192x64/5@64x192wt" 2>&1 | tee $OUT/probe_192.txt
