#!/bin/bash
# v21 call 1 (H100): TMA maps whose boxes hold gcd(slab, tile rows) rows, so that tiles may straddle two
# slabs of a split mn dimension. GPU tests of the split maps, then #2's core (the long narrow rule's
# 256 x 32 tile, A = the big input, M = (a, c) with a's 312 rows a slab: boxes of 8 rows) fed by TMA
# against the heuristic's cp.async loaders, round-robin, f16 and f16 -> f32.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee "$out/gpu.txt"
timeout 240 python3 -m pytest -q -x tests/test_gpu_wgmma.py -k "tma_split" 2>&1 | tail -5 | tee "$out/tests.txt"
T="256x32x64/4@64x32wtp,256x32x64/5@64x32wtp,128x32x64/8@64x32wtp,128x32x64/6@64x32wtp,256x32x64/4@64x32wt"
for d in f16 f16f32; do
  echo "== #2 $d"; timeout 150 python3 -m tccg.tile_probe --cases 2 --dtype $d --rounds 5 --tiles "$T" 2>&1 | grep -v "^$"
done 2>&1 | tee "$out/probe_2_tma.txt"
