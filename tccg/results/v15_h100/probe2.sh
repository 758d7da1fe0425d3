#!/bin/bash
# Session 12 (no device then), for the next session's second call: the L2 prefetch hint on every f32 and
# f16 -> f32 heuristic core (f32: #2 1.077x behind torch, its k-major rows 1248 bytes, 96 bytes off
# alignment; #14 / #20 tie with cuTENSOR within 1%: their simt cores are FFMA-issue-bound, so no change is
# predicted there), round-robin against the heuristic's own; and A's panel resident (TileConfig.resident_a)
# on the f32 cores that take one (#2, #4, #5, #6, #8).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 300 python3 -m tccg.tile_probe --cases all --dtype f32 --rounds 3 --tiles "H:l128,H:l256" 2>&1 | tee $OUT/probe_f32.txt
timeout 80 python3 -m tccg.tile_probe --cases 2,4,5,6,8 --dtype f32 --rounds 3 --tiles "H:r,P:r,P:l128:r,H:l128" 2>&1 | tee $OUT/probe_res_f32.txt
timeout 200 python3 -m tccg.tile_probe --cases all --dtype f16f32 --rounds 3 --tiles "H:l128,P:r,P:l128:r" 2>&1 | tee $OUT/probe_f16f32.txt
echo "== summary"; grep -A4 "^== against" $OUT/probe_f32.txt $OUT/probe_res_f32.txt $OUT/probe_f16f32.txt
