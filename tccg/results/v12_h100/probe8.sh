#!/bin/bash
# Session 9, call 8: warp-specialised tiles with fewer barrier arrivals (a TMA stage's full barrier takes one
# arrival with its bytes, from the one issuing thread; the empty barriers one per computing warp, not per
# thread): the warp-specialised GPU tests, then #12 / #20 f16 in the tile probe (call 8: 0.4195 / 0.4041 ms).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 170 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_cluster.py tests/test_gpu_stream_k.py tests/test_gpu_persistent.py \
  tests/test_gpu_wgmma.py -k "cluster or ws or warp or tma or dead or aligned or persistent" 2>&1 | tail -4 | tee $OUT/gpu_tests.txt
timeout 60 python3 -m tccg.tile_probe --cases 12,20 --dtype f16 --tiles "128x256x64/4@64x256wt" 2>&1 | tee $OUT/probe_12_20.txt
timeout 40 python3 -m tccg.tile_probe --cases 12 --dtype f16f32 2>&1 | tee $OUT/probe_12_f16f32.txt
