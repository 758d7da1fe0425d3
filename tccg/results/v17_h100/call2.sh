#!/bin/bash
# v17 call 2 (H100): #2's big input read whole rows at a time (bk covering all of K = 312 in one or two
# k-tiles, so each 624-byte row is fetched in one burst instead of five 128-byte k-tiles far apart in time).
# f16: persistent resident-panel tiles of 64 / 96 / 128 columns; f32: simt tiles. Files under $OUT/call2.
set -u
export PYTHONUNBUFFERED=1
O=$OUT/call2; mkdir -p $O
timeout 150 python3 -m tccg.tile_probe --cases 2 --dtype f16 --rounds 5 --tiles \
  "32x64x320/4@32x8p:l128:r,32x64x320/4@32x8p:l256:r,32x64x320/4@32x8p:r,32x64x320/3@32x8p:l128:r,32x96x320/3@32x8p:l128:r,32x128x320/2@32x16p:l128:r,32x128x160/4@32x16p:l128:r,32x64x160/6@32x8p:l128:r,32x64x320/4@32x8:l128:r" \
  2>&1 | tee $O/probe_2_f16.txt | grep -v "^compiling"
timeout 150 python3 -m tccg.tile_probe --cases 2 --dtype f32 --rounds 5 --tiles \
  "32x32x320/2@4x1s:l128,32x64x160/2@4x2s:l128,32x32x320/2@4x1sp:l128,32x64x96/3@4x2s:l128" \
  2>&1 | tee $O/probe_2_f32.txt | grep -v "^compiling"
