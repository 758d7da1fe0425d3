#!/bin/bash
# v28 call 9 (H100): #12 f16's tile without clusters, on 52 KB stages (commit 14ee108's B in five 32-column atoms under
# the 64-byte swizzle, from _old14/ = `git archive 14ee108 gettpy tccg/*.py`) and on today's 56 KB ones, each against
# its tree's heuristic (clusters of 2): tccg.tile_probe, every tile checked against float64, 5 round-robin rounds
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1
T="256x160x64/4@64x160wtp:g4:e"
(cd _old14 && PYTHONPATH=$PWD timeout 250 python3 -m tccg.tile_probe --cases 12 --dtype f16 --tiles "$T" --rounds 5) 2>&1 \
  | tee "$out/old14.txt"
PYTHONPATH=$PWD timeout 250 python3 -m tccg.tile_probe --cases 12 --dtype f16 --tiles "$T" --rounds 5 2>&1 | tee "$out/now.txt"
