#!/bin/bash
# v18 call 5 (H100): f32 compute-bound cores on one CTA per SM of 256 threads with 16 x 8 / 12 x 8 / 12 x 12 thread
# tiles (cuTENSOR's #20 kernel is cutlass_80_simt_sgemm_256x128_8x4: 256 threads, 202 registers, 88% issue slots
# busy, ncu20/), stream-K over 132 CTAs, against the heuristic's 128 x 64 x 16 / 4 of 8 x 8 (3 CTAs per SM).
# Files under $OUT/call5.
set -u
export PYTHONUNBUFFERED=1
O=$OUT/call5; mkdir -p $O
timeout 280 python3 -m tccg.tile_probe --cases 20,21,28,12 --dtype f32 --rounds 3 --tiles \
  "256x128x8/4@16x8s:k132,128x256x8/4@8x16s:k132,192x128x8/4@12x8s:k132,128x192x8/4@8x12s:k132,192x192x8/4@12x12s:k132,256x128x16/3@16x8s:k132,256x128x8/4@16x8s" \
  2>&1 | tee $O/probe.txt | grep -v "^compiling"
