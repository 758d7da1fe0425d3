#!/bin/bash
# Session 7, call 11: stream-K on TMA warp-specialised tiles again, with a proxy fence between a share's
# epilogue (generic-proxy shared-memory accesses) and the next share's TMA writes. GPU tests, then the
# tile probe with and without stream-K.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 200 python3 -m pytest -q tests/test_gpu_stream_k.py 2>&1 | grep -E "passed|failed|Error|assert" | head -12 | tee $OUT/gpu_tests.txt
python3 -m tccg.tile_probe --cases 12,20 --dtype f16 --tiles "128x256x64/4@64x256wt" 2>&1 | tee $OUT/probe_ws_sk.txt
