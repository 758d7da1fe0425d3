#!/bin/bash
# v17 call 1 (H100): the like-for-like torch figure on #2 / #12, #2 f16 persistent-resident tiles by stages and
# by waves, f32 simt cores of #12 / #20 / #21 by bk and stages. Files under $OUT/call1.
set -u
export PYTHONUNBUFFERED=1
O=$OUT/call1; mkdir -p $O
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv | tee $O/gpu.txt
timeout 90 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_peers.py 2>&1 | tail -3 | tee $O/test.txt
timeout 150 python3 -m tccg --cases 2,12 --dtype f16,f16f32,f32 --order F --no-plots --out $O/like 2>&1 \
  | grep -v "tccg gpu" | tail -22 | tee $O/like.txt
timeout 150 python3 -m tccg.tile_probe --cases 2 --dtype f16 --rounds 5 --tiles \
  "32x256x64/4@32x32p:l128:r,32x256x64/5@32x32p:l128:r,32x192x64/6@32x32p:l128:r,32x192x64/7@32x32p:l128:r,32x128x64/4@32x32p:b2:l128:r,32x128x64/6@32x32p:l128:r,32x240x64/4@32x48p:l128:r,32x176x64/5@32x16p:l128:r,32x240x64/4@32x16p:l128:r" \
  2>&1 | tee $O/probe_2.txt | grep -v "^compiling"
timeout 180 python3 -m tccg.tile_probe --cases 20,21,12 --dtype f32 --rounds 3 --tiles \
  "128x64x32/2@8x8s:b3:k396,128x64x32/3@8x8s:b2:k264,128x64x16/3@8x8s:b3:k396,128x64x16/5@8x8s:b3:k396" \
  2>&1 | tee $O/probe_f32.txt | grep -v "^compiling"
