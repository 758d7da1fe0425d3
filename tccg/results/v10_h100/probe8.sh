#!/bin/bash
# Session 7, call 8: stream-K on the TMA warp-specialised f16 tiles (#12, #20-#30: 6.2-6.5 waves of one
# CTA per SM). GPU tests, then the tile probe with and without stream-K, then #12 and #20-#30 end to end.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 200 python3 -m pytest -q tests/test_gpu_stream_k.py 2>&1 | tail -3 | tee $OUT/gpu_tests.txt
python3 -m tccg.tile_probe --cases 12,20,28 --dtype f16 --tiles "128x256x64/4@64x256wt,256x128x64/4@64x128wt:k132,256x128x64/4@64x128wt" 2>&1 | tee $OUT/probe_ws_sk.txt
python3 -m tccg --cases 12,20-30 --dtype f16,f16f32 --order F --no-peers --no-plots --out $OUT/e2e 2>&1 | grep -E "^ +[0-9]+ |geomean" | tee $OUT/e2e.txt
