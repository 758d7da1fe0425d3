#!/bin/bash
# Session 11, call 8: #2 f16 reading whole rows of its big input per tile (bk 320 = K 312 in one k-tile,
# or 160 in two), persistent tiles pipelining across tiles instead of across k.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 150 python3 -m tccg.tile_probe --cases 2 --dtype f16 --rounds 3 --tiles "P,32x64x320/3@32x16p,32x32x320/4@32x8p,32x128x320/2@32x16p,32x64x320/3@32x16,32x128x160/3@32x16p,32x256x160/2@32x32p" 2>&1 | tee $OUT/probe.txt
echo "== summary"; grep " ms " $OUT/probe.txt
