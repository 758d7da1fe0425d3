#!/bin/bash
# Session 9, call 4: TMA tiles in clusters of two CTAs with B multicast (TileConfig.cluster = 2): GPU tests,
# then the tile probe on #12 and #20 f16 (B crosses from L2 once per pair: 48 -> 32 KB per CTA per k-tile).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 150 python3 -m pytest -q -x -p no:cacheprovider tests/test_gpu_cluster.py 2>&1 | tail -25 | tee $OUT/gpu_tests_cluster.txt
python3 -m tccg.tile_probe --cases 12,20 --dtype f16 --tiles "128x256x64/4@64x256wt:c2,256x128x64/4@64x128wt:c2,128x256x64/4@64x256wt:g16:c2,128x128x64/4@64x128wt:c2" 2>&1 | tee $OUT/probe_cluster.txt
timeout 100 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_stream_k.py -k "ws or dead" 2>&1 | tail -3 | tee $OUT/gpu_tests_sk.txt
