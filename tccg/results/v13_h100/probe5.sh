#!/bin/bash
# Session 10, call 5: the new heuristic TMA tiles (#12 256 x 160 in clusters, #20-#30 128 x 240) against
# v12's 128 x 256 ones, timed round-robin (3 rounds), f16 and f16 -> f32; then the gpu tests of
# test_gpu.py and test_einsum_cases.py on the final code.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 60 python3 -m tccg.tile_probe --cases 12 --dtype f16 --tiles "128x256x64/4@64x256wt:c2,128x224x64/4@64x224wt:c2" 2>&1 | tee $OUT/probe_12.txt
timeout 60 python3 -m tccg.tile_probe --cases 20,25 --dtype f16 --tiles "128x256x64/4@64x256wt,128x208x64/4@64x208wt" 2>&1 | tee $OUT/probe_20_25.txt
timeout 60 python3 -m tccg.tile_probe --cases 12,20 --dtype f16f32 --tiles "128x256x64/4@64x256wt:c2,128x256x64/4@64x256wt" 2>&1 | tee $OUT/probe_f16f32.txt
timeout 450 python3 -m pytest tests/test_gpu.py tests/test_einsum_cases.py -m gpu -q -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/gpu_tests_part1.log
echo "== summary"; grep -h " ms " $OUT/probe_*.txt | awk '{print $1,$2,$3,$5,$6,$9,$10,$11,$NF}'; tail -1 $OUT/gpu_tests_part1.log
