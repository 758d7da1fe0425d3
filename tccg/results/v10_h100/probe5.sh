#!/bin/bash
# Session 7, call 5: the new simt FFMA order and compute-bound f32 tile. GPU tests of the simt paths,
# 8x8-per-thread tiles on #15-#18 (compute-bound f32, M or N ~ 300), and the whole f32 suite.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 330 python3 -m pytest -q tests/test_gpu_stream_k.py tests/test_gpu_persistent.py tests/test_gpu_semiring.py \
  tests/test_gpu.py -k "f32 or f64 or stream_k or persistent or semiring" 2>&1 | tail -3 | tee $OUT/gpu_tests.txt
python3 -m tccg.tile_probe --cases 15-18 --dtype f32 --tiles \
  "64x128x16/3@8x8s:b3,128x64x16/3@8x8s:b3,64x128x16/4@8x8s:b3,128x64x16/4@8x8s:b3" 2>&1 | tee $OUT/probe_15_18.txt
python3 -m tccg --dtype f32 --order F --no-peers --no-plots --out $OUT/e2e 2>&1 | tail -60 | tee $OUT/e2e.txt
