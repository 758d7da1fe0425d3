#!/bin/bash
# Session 6, second device call: the f32 split heuristic end to end, then tile probes (logs under $OUT).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 80 python3 -m tccg --dtype f32,f16 --cases 13,14,19 --order F --no-peers --no-plots --out $OUT/csv 2>&1 | grep -v "^ *vs \|GM1" | tee $OUT/split_heuristic.txt
timeout 100 python3 -m tccg.tile_probe --dtype f32 --cases 15,16,17,18 \
  --tiles 64x128x16/3@4x8s,128x64x16/3@8x4s,64x64x16/3@4x4s 2>&1 | tee $OUT/probe_f32_15.txt
timeout 130 python3 -m tccg.tile_probe --dtype f16 --cases 15,16,17,18 \
  --tiles 64x128x64/4@64x128w,64x128x64/6@64x128w,256x64x64/3@64x64w,128x64x64/4@64x64w 2>&1 | tee $OUT/probe_f16_15.txt
timeout 80 python3 -m tccg.tile_probe --dtype f16 --cases 1,2 \
  --tiles 32x256x64/4@32x32,32x256x64/3@32x32,32x256x32/6@32x32 2>&1 | tee $OUT/probe_f16_1.txt
timeout 120 python3 -m tccg.tile_probe --dtype f16 --cases 12,20 \
  --tiles 128x256x64/3@64x256wt,128x192x64/4@64x192wt,128x192x64/5@64x192wt,128x128x64/6@64x128wt,256x128x64/4@64x128wt 2>&1 | tee $OUT/probe_tma.txt
timeout 90 python3 -m pytest tests/test_schedule.py -m gpu -q -x 2>&1 | tail -3 | tee $OUT/gpu_tests_schedule.log
