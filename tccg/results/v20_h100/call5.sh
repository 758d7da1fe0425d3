#!/bin/bash
# v20 call 5 (H100): #2 f16's core kernel with the kernel's m modes in other orders (tccg.tile_probe --order):
# a cut into runs of 8 / 24 / 104 before c (A read in runs of 32 / 10 / 2 consecutive rows of c; D stored in
# 16-byte vectors along a), and c before a (A's rows all consecutive, D's 2-byte values scattered), against the
# planner's (a, c) (A's 256 rows of a tile 184 KB apart). Heuristic tile for each; the default order first and last.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1
for o in "" "m=a:8,c" "m=a:24,c" "m=a:104,c" "m=c,a" ""; do
  echo "== order '$o'"; timeout 90 python3 -m tccg.tile_probe --cases 2 --dtype f16 --rounds 5 --paths none --order "$o" 2>&1 | grep "^ 2"
done 2>&1 | tee "$out/probe_2_orders.txt"
