#!/bin/bash
# v17 call 6 (H100): call5's best, 256 x 32 x 64 / 5 warp-specialised persistent wgmma on #2 with A and B trading
# roles, by stages, persistence and L2 prefetch size, f16 and f16 -> f32, the unswapped heuristic before and after.
set -u
export PYTHONUNBUFFERED=1
O=$OUT/call6; mkdir -p $O
for dt in f16 f16f32; do
  timeout 60 python3 -m tccg.tile_probe --cases 2 --dtype $dt --rounds 5 --tiles "H" 2>&1 | grep " \* " | tee $O/h1_$dt.txt
done
timeout 150 python3 -m tccg.tile_probe --cases 2 --dtype f16 --swap --rounds 7 --tiles \
  "256x32x64/5@64x32wxp:l128,256x32x64/4@64x32wxp:l128,256x32x64/5@64x32wx:l128,256x32x64/5@64x32wxp:l256,256x32x64/5@64x32wxp:l64" \
  2>&1 | grep -v "^compiling" | tee $O/ws_f16.txt
timeout 150 python3 -m tccg.tile_probe --cases 2 --dtype f16f32 --swap --rounds 7 --tiles \
  "256x32x64/4@64x32wxp:l128,128x32x64/8@64x32wxp:l128,128x32x64/6@64x32wxp:l128" \
  2>&1 | grep -v "^compiling" | tee $O/ws_f16f32.txt
for dt in f16 f16f32; do
  timeout 60 python3 -m tccg.tile_probe --cases 2 --dtype $dt --rounds 5 --tiles "H" 2>&1 | grep " \* " | tee $O/h2_$dt.txt
done
