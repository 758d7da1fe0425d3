#!/bin/bash
# Session 7, call 2: stream-K. GPU tests of stream-K and the stagings, tile probe with and without
# stream-K on #20 / #21 / #12 f32, then #12 and #20-#30 f32 end to end.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 300 python3 -m pytest -q -x tests/test_gpu_stream_k.py tests/test_gpu_persistent.py tests/test_schedule.py \
  2>&1 | tail -5 | tee $OUT/gpu_tests.txt
python3 -m tccg.tile_probe --cases 20,21,12 --dtype f32 --tiles "128x128x16/3@8x8s:b2,128x128x32/2@8x8s:b2:k264,128x128x32/2@8x8s:b2,128x128x16/4@8x8s:b2:k264" 2>&1 | tee $OUT/probe_tiles.txt
python3 -m tccg --cases 12,20-30 --dtype f32 --order F --no-peers --no-plots --out $OUT/e2e 2>&1 | tail -16 | tee $OUT/e2e.txt
