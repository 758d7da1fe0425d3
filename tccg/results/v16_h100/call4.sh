#!/bin/bash
# Session 13, fourth call: #15, #17, #18 (tall-skinny, D's stride-1 mode on the long side, which the
# transpose flag puts on n) on the other flag, where the long side is m: the heuristic's tiles there (the
# tall 256 x 128 persistent wgmma tile) and the tuner's pick for #15 (256 x 160 x 64 / 4, call3), against
# the heuristic's own flag. Cores alone (no packs on either flag), f16 and f16 -> f32.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
for dt in f16 f16f32; do
  timeout 70 python3 -m tccg.tile_probe --dtype $dt --cases 15,16,17,18 --rounds 5 --tiles "128x128x64/3@64x128w" 2>&1 | grep -v "tccg gpu" > $OUT/probe_${dt}.txt
  timeout 90 python3 -m tccg.tile_probe --dtype $dt --swap --cases 15,16,17,18 --rounds 5 \
    --tiles "256x160x64/4@64x160w,256x160x64/4@64x160wp,256x128x64/4@64x128wp,128x128x64/3@64x128w" 2>&1 | grep -v "tccg gpu" > $OUT/probe_${dt}_swap.txt
done
grep " \* \|geomean" $OUT/probe_*.txt
