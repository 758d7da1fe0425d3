#!/bin/bash
# Session 7, after the review refactor (one per-tile routine for whole tiles and stream-K shares):
# GPU tests of the stream-K, persistent, schedule and f32/f64 paths, then #20 / #12 f32 timed.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 330 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_stream_k.py tests/test_gpu_persistent.py \
  tests/test_schedule.py tests/test_gpu_wgmma.py tests/test_gpu.py -m gpu -k "f32 or f64 or stream_k or persistent or schedule or wgmma" \
  2>&1 | tail -3 | tee $OUT/gpu_tests.txt
python3 -m tccg.tile_probe --cases 20,12 --dtype f32 --tiles "128x64x16/4@8x8s:b3" 2>&1 | tee $OUT/probe_f32_sk.txt
