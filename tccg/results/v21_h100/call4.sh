#!/bin/bash
# (TileConfig.row_prefetch and tile_probe's :qN were in commit c4d8209 and reverted after this call: slower)
# v21 call 4 (H100): whole rows of A prefetched into the L2 (TileConfig.row_prefetch, cp.async.bulk.prefetch.L2)
# on #2's narrow warp-specialised tile: GPU tests, then #2's core against the heuristic (the same tile without
# it), round-robin, 7 rounds, f16 and f16 -> f32: q1 = a tile's own rows at its start, q2 = the first tile's,
# then the CTA's next tile's at each tile's start; with and without the 128-byte copy prefetch; 3 stages.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1
timeout 200 python3 -m pytest -q tests/test_gpu_wgmma.py -k "row_prefetch" 2>&1 | tail -3 | tee "$out/tests.txt"
T="H:q1,H:q2,256x32x64/4@64x32wxp:q2,256x32x64/3@64x32wxp:l128:q2,256x32x64/4@64x32wx:l128:q1"
for d in f16 f16f32; do
  echo "== #2 $d"; timeout 150 python3 -m tccg.tile_probe --cases 2 --dtype $d --rounds 7 --tiles "$T" 2>&1 | grep -v "^$"
done 2>&1 | tee "$out/probe_2_rows.txt"
