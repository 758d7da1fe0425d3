#!/bin/bash
# Session 9, call 2: stream-K / dead-warpgroup GPU tests (fixed extents); SM clock and power of #12's core
# against torch (is the f16 GEMM power-limited, so that the stream-K tail of call 1 gained nothing?); the
# raster group size of the TMA tiles (L2 reuse: DRAM traffic costs power) on #12 and #20.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_stream_k.py 2>&1 | tail -5 | tee $OUT/gpu_tests.txt
PYTHONPATH=. python3 tccg/results/v12_h100/clock_probe.py 12 "128x256x64/4@64x256wt:g16" "128x256x64/4@64x256wt:k132:s2" 2>&1 | tee $OUT/clock_12.txt
python3 -m tccg.tile_probe --cases 12,20 --dtype f16 --tiles "128x256x64/4@64x256wt:g2,128x256x64/4@64x256wt:g4,128x256x64/4@64x256wt:g16,128x256x64/4@64x256wt:g32,128x256x64/4@64x256wt:g64" 2>&1 | tee $OUT/probe_group.txt
