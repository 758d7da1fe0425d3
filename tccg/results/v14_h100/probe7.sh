#!/bin/bash
# Session 11, call 7: #2 on persistent tiles, small enough to balance (32 x 64: 1443 tiles = 10.9 a CTA);
# f16 and f32. Then #2 and #12 end to end against torch (prefetch.tensormap in, no cuTENSOR here).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 100 python3 -m tccg.tile_probe --cases 2 --dtype f16 --rounds 3 --tiles "P,32x256x64/4@32x32p,32x128x64/6@32x32p,32x64x64/8@32x16p,32x64x64/6@32x32p,32x32x64/10@32x8p" 2>&1 | tee $OUT/probe.txt
timeout 100 python3 -m tccg.tile_probe --cases 2 --dtype f32 --rounds 3 --tiles "P,32x64x32/6@4x4sp,32x64x32/4@4x4sp,32x64x32/4@4x2sp" 2>&1 | tee -a $OUT/probe.txt
timeout 200 python3 -m tccg --cases 2,12,20 --dtype f16 --order F --no-plots --out /tmp/e2e 2>&1 | tail -12 | tee $OUT/e2e.txt
echo "== summary"; grep " ms " $OUT/probe.txt; grep "slower\|geomean\|layout" $OUT/e2e.txt
