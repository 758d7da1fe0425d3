#!/bin/bash
# Session 12, call 2 (after call1/): f16 refinement. call1 found the resident panel on persistent tiles
# (P:r) 17-29% faster on #5, #6, #8, the non-persistent resident tile (H:r) no faster, and .L2::128B 1% faster
# on geomean (#2, #5-#8 3.5-5%) where 256 B was 3.5% slower. Here: persistent alone against persistent +
# resident, with 128 B, on the cases that take a panel and #7, 5 rounds.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 150 python3 -m tccg.tile_probe --cases 2,5,6,7,8 --dtype f16 --rounds 5 --tiles "P,P:r,P:l128:r,H:l128,P:l128" 2>&1 | tee $OUT/probe3.txt
echo "== summary"; grep -A6 "^== against" $OUT/probe3.txt
