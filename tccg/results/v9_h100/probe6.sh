#!/bin/bash
# Session 6, sixth device call: #19 f16 split-K on 4-stage tiles, f32 tiles for #9 and #29/#30, then the
# f16 suite with and without the fused leaky_relu (peers off).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 80 python3 -m tccg.split_probe --cases 19 --splits d/2,d/3,d/4,d/6 \
  --tiles 128x64x64/4@64x64w,128x64x64/3@64x64w 2>&1 | grep -v ValueError | tee $OUT/split_f16_19.txt
timeout 100 python3 -m tccg.tile_probe --dtype f32 --cases 9,29,30 \
  --tiles 256x72x16/3@8x9s,128x72x16/3@4x9s,128x128x32/2@8x8s 2>&1 | tee $OUT/probe_f32_9_29.txt
timeout 300 python3 -m tccg --dtype f16 --ops none,leaky_relu --order F --no-peers --no-plots --out $OUT/csv 2>&1 | grep -v "tccg gpu" | tail -110 > $OUT/ops_log.txt
tail -14 $OUT/ops_log.txt
