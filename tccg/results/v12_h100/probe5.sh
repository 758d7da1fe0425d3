#!/bin/bash
# Session 9, call 5: the aligned stream-K form on f32 simt grids (#20: 3321 tiles on 396 slots, tail 153 ->
# 2 slices each; #13's split core: 1850 tiles on 792 slots, tail 266 -> 2 slices), then #12-#14 and #20
# end to end in all three types against torch (the cluster tile now the heuristic's for #12).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
python3 -m tccg.tile_probe --cases 20 --dtype f32 --tiles "128x64x16/4@8x8s:b3:k396:s2,128x64x16/4@8x8s:b3" 2>&1 | tee $OUT/probe_20_f32.txt
python3 -m tccg.split_probe --cases 13 --dtype f32 --splits c/74 --tiles "64x64x16/3@8x8s:b6:k792,64x64x16/3@8x8s:b6:k792:s2" 2>&1 | tee $OUT/split_13_f32.txt
python3 -m tccg --cases 12-14,20 --dtype f16,f16f32,f32 --order F --no-plots --out $OUT/e2e 2>&1 | tail -40 | tee $OUT/e2e.txt
