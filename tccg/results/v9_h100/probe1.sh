#!/bin/bash
# Session 6, first device call: GPU tests of the untested pack code, then probes (logs under $OUT).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $OUT/gpu.txt
timeout 150 python3 -m pytest tests/test_permute.py -m gpu -q -x 2>&1 | tail -5 | tee $OUT/gpu_tests_permute.log
timeout 100 python3 -m tccg.split_probe --dtype f32 --cases 19 --splits d/4,d/6,d/8,d/9 \
  --tiles 72x128x8/3@9x4s,72x128x16/3@9x4s,64x64x16/3@4x4s 2>&1 | tee $OUT/split_f32_19.txt
timeout 120 python3 -m tccg.split_probe --dtype f32 --cases 13,14 --splits c/37,c/74,c/26,c/13 \
  --tiles 128x128x8/4@8x8s,128x64x16/3@8x4s 2>&1 | tee $OUT/split_f32_13.txt
timeout 150 python3 -m tccg.split_probe --cases 13,14 --splits c/37,c/74,c/26,c/13 \
  --tiles 192x128x64/3@64x128w,128x192x64/3@64x192w,256x128x64/3@64x128w 2>&1 | tee $OUT/split_f16_13.txt
timeout 90 python3 -m tccg.tile_probe --cases 19 --dtype f16 \
  --tiles 128x64x64/6@64x64w,128x64x64/8@64x64w,128x128x64/4@64x128w,128x128x64/6@64x128w 2>&1 | tee $OUT/probe_19.txt
timeout 100 python3 -m tccg --dtype f16 --ops none,leaky_relu --cases 1,9,13,16,31-36 --order F --no-peers --no-plots --out $OUT 2>&1 | tail -30 | tee $OUT/ops_log.txt
timeout 60 python3 -m tccg --dtype f32 --cases 13,14,19 --order F --no-peers --no-plots --out $OUT 2>&1 | tail -12 | tee $OUT/f32_log.txt
