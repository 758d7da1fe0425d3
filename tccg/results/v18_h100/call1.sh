#!/bin/bash
# v18 call 1 (H100): the mended timing loop (gettpy.graphs.replay_ms) on the GPU; f32 tiles without padding for
# the 5184^3 family (#20, #21, #28: 192 x 64 / 64 x 192 / 96 x 64 of 8 x 8 threads), 24-wide f32 tiles for #2,
# split factors and stages for f32 #14. Files under $OUT/call1.
set -u
export PYTHONUNBUFFERED=1
O=$OUT/call1; mkdir -p $O
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv | tee $O/gpu.txt
timeout 120 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_tune.py tests/test_gpu_peers.py tests/test_graphs.py 2>&1 | tail -3 | tee $O/test.txt
timeout 100 python3 -m tccg --cases 2,12,14,20 --dtype f16,f32 --order F --no-plots --out $O/short 2>&1 \
  | grep -v "tccg gpu" | tail -14 | tee $O/short.txt
timeout 150 python3 -m tccg.tile_probe --cases 20,21,28 --dtype f32 --rounds 3 --tiles \
  "192x64x16/4@8x8s:b2:k264,64x192x16/4@8x8s:b2:k264,192x64x16/3@8x8s:b2:k264,192x64x16/4@8x8s:b2,96x64x16/4@8x8s:b4:k528,64x96x16/4@8x8s:b4:k528" \
  2>&1 | tee $O/probe_f32_sq.txt | grep -v "^compiling"
timeout 100 python3 -m tccg.tile_probe --cases 2 --dtype f32 --rounds 5 --tiles \
  "24x128x32/3@3x4s:l128,24x256x16/4@24x4s,24x256x16/4@24x4s:l128,24x512x16/3@24x4s:l128,24x256x16/4@12x4s:l128,24x128x16/4@12x4s:l128,24x128x16/6@12x4s:l128,24x256x32/3@12x4s:l128,24x256x16/4@24x4sp:l128" \
  2>&1 | tee $O/probe_f32_2.txt | grep -v "^compiling"
timeout 100 python3 -m tccg.split_probe --cases 14 --dtype f32 --splits c/26,c/39,c/78,c/104 \
  --tiles "64x64x16/4@8x8s:b6,64x64x32/3@8x8s:b4" 2>&1 | tee $O/split_14.txt
