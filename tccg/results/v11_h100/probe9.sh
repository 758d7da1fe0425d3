#!/bin/bash
# Session 8 call 9: deeper pipelines on the persistent narrow tiles (cuBLAS runs f16 #2 as a persistent
# 32x192x64 kernel with 7 stages, 2.30 TB/s against our 2.02: call8/).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
python3 -m tccg.tile_probe --dtype f16 --cases 2 --tiles 32x256x64/3@32x32p,32x256x64/4@32x32p,32x256x64/5@32x32p,32x128x64/6@32x32p,32x128x64/8@32x32p 2>&1 | tee $OUT/tiles2_f16.txt
python3 -m tccg.tile_probe --dtype f16 --cases 5,6,7,8 --tiles 32x256x32/4@32x32p,32x256x32/6@32x32p,32x256x32/6@32x32 2>&1 | tee $OUT/tiles5_8_f16.txt
python3 -m tccg.tile_probe --dtype f32 --cases 2 --tiles 32x128x32/3@4x4sp,32x128x32/5@4x4sp,32x128x32/6@4x4s 2>&1 | tee $OUT/tiles2_f32.txt
