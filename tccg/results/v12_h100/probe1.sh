#!/bin/bash
# Session 9, call 1: the launch path's cached workspace sizes (session 8's last mend) and stream-K on the
# warp-specialised tiles with its aligned form (sk_split) under the GPU tests; then the tile probe on #12
# and #20 f16: the heuristic tile (now without wgmmas for a warpgroup's rows past M) against the aligned
# stream-K tail, in both tile orientations.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv | tee $OUT/gpu.txt
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_stream_k.py tests/test_gpu_resources.py \
  tests/test_gpu_persistent.py tests/test_gpu_wgmma.py 2>&1 | tail -15 | tee $OUT/gpu_tests.txt
python3 -m tccg.tile_probe --cases 12 --dtype f16 --tiles "128x256x64/4@64x256wt:k132:s2,256x128x64/4@64x128wt,256x128x64/4@64x128wt:k132:s4,256x128x64/4@64x128wt:k132:s2" 2>&1 | tee $OUT/probe_12.txt
python3 -m tccg.tile_probe --cases 20 --dtype f16 --tiles "128x256x64/4@64x256wt:k132:s2,256x128x64/4@64x128wt,256x128x64/4@64x128wt:k132:s2" 2>&1 | tee $OUT/probe_20.txt
