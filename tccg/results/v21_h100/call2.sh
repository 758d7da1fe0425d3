#!/bin/bash
# v21 call 2 (H100): the split-map GPU tests again (the cluster case on 128-wide tiles), then #2 f16's core
# with the kernel's m = (a, c) reordered as (c cut into runs of 2 / 4 / 8 / 16, a, the rest of c): A read
# in 1.2-10 KB contiguous pieces (k-major rows of 624 bytes, consecutive c), D stored in 2-byte values
# (a is not m's first mode); the planner's order first and last.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1
timeout 240 python3 -m pytest -q tests/test_gpu_wgmma.py -k "tma_split" 2>&1 | tail -3 | tee "$out/tests.txt"
for o in "" "m=c:2,a" "m=c:4,a" "m=c:8,a" "m=c:16,a" ""; do
  echo "== order '$o'"; timeout 90 python3 -m tccg.tile_probe --cases 2 --dtype f16 --rounds 5 --paths none --order "$o" 2>&1 | grep "^ 2"
done 2>&1 | tee "$out/probe_2_corders.txt"
