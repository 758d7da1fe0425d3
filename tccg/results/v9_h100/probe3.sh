#!/bin/bash
# Session 6, third device call: tile probes (f32 k-major bk 32, ccsd_t warps, narrow and mid f16 tiles).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 150 python3 -m tccg.tile_probe --dtype f32 --cases 20,21,26,28 \
  --tiles 128x128x32/3@8x8s,128x128x32/2@8x8s 2>&1 | tee $OUT/probe_f32_kmajor.txt
timeout 60 python3 -m tccg.tile_probe --dtype f32 --cases 1,2,5 \
  --tiles 32x128x32/3@2x8s,32x128x32/2@2x8s 2>&1 | tee $OUT/probe_f32_narrow.txt
timeout 90 python3 -m tccg.tile_probe --dtype f16 --cases 32,33,38 \
  --tiles 96x128x32/2@48x32p,96x256x32/2@48x64p,192x128x32/2@48x64p,96x128x32/3@48x64p 2>&1 | tee $OUT/probe_ccsd.txt
timeout 90 python3 -m tccg.tile_probe --dtype f16 --cases 1,3,6 \
  --tiles 32x512x32/3@32x64,32x256x32/4@32x64,32x256x32/2@32x32 2>&1 | tee $OUT/probe_narrow.txt
timeout 90 python3 -m tccg.tile_probe --dtype f16 --cases 15,16,17,9 \
  --tiles 128x128x64/2@64x128w,128x256x64/2@64x256w,256x128x64/2@64x128w 2>&1 | tee $OUT/probe_mid.txt
