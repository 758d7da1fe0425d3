#!/bin/bash
# Session 6, thirteenth device call: mma.sync tiles exactly 72 (or 80) on the short side of #9-#11, against
# the 128x128 wgmma tile (56 of its 128 columns or rows padding).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 100 python3 -m tccg.tile_probe --dtype f16 --cases 9 \
  --tiles 128x72x32/4@32x72,128x72x64/4@32x72,256x72x32/3@32x72 2>&1 | tee $OUT/probe_72.txt
timeout 100 python3 -m tccg.tile_probe --dtype f16 --cases 10,11 \
  --tiles 80x128x32/4@80x32,80x128x64/3@80x32,80x256x32/3@80x32 2>&1 | tee -a $OUT/probe_72.txt
