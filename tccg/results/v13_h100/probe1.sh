#!/bin/bash
# Session 10, call 1: tiles whose waves fit #12 / #20 (128 x 224: #12 920 CTAs = 6.97 waves of 132 against
# 840 = 6.36 of 128 x 256; 256 x 160 with setmaxnreg: #12 660 = 5 waves), then #12 / #20 with torch in
# the same call, then the GPU tests of the changed warp-specialised code.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv | tee $OUT/gpu.txt
timeout 150 python3 -m tccg.tile_probe --cases 12 --dtype f16 --tiles "128x224x64/4@64x224wt:c2,128x224x64/4@64x224wt,128x240x64/4@64x240wt,256x160x64/3@64x160wt:c2,256x160x64/4@64x160wt:c2,256x160x64/4@64x160wt,256x128x64/4@64x128wt:c2,256x192x64/3@64x192wt:c2,128x256x64/4@64x256wt:c2" 2>&1 | tee $OUT/probe_12.txt
timeout 120 python3 -m tccg.tile_probe --cases 20 --dtype f16 --tiles "128x208x64/4@64x208wt,128x240x64/4@64x240wt,128x224x64/4@64x224wt,256x160x64/4@64x160wt,256x192x64/3@64x192wt,256x128x64/4@64x128wt" 2>&1 | tee $OUT/probe_20.txt
timeout 100 python3 -m tccg --cases 12,20 --dtype f16 --no-plots --out $OUT/tccg 2>&1 | grep -v "tccg gpu" | tail -12 | tee $OUT/tccg.txt
timeout 330 python3 -m pytest -q -x tests/test_gpu_cluster.py tests/test_gpu_wgmma.py -k "cluster or warp_specialised or tma" 2>&1 | tail -5 | tee $OUT/tests.txt
echo "== summary"; grep -h " ms " $OUT/probe_12.txt $OUT/probe_20.txt | awk '{print $1,$2,$3,$5,$6,$9,$10,$NF}'; tail -1 $OUT/tests.txt
