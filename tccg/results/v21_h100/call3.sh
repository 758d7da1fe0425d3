#!/bin/bash
# v21 call 3 (H100): #12 f16's core (the persistent 256 x 160 TMA tile in clusters of two, chunked epilogue)
# by raster group: tile rows per group 2 / 4 (the heuristic's) / 6 / 10 / 20 (20 = all of them: the walk goes
# down each column of tiles), round-robin, 7 rounds.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1
T="256x160x64/4@64x160wtp:g2:c2:e,256x160x64/4@64x160wtp:g6:c2:e,256x160x64/4@64x160wtp:g10:c2:e,256x160x64/4@64x160wtp:g20:c2:e"
timeout 300 python3 -m tccg.tile_probe --cases 12 --dtype f16 --rounds 7 --tiles "$T" 2>&1 | tee "$out/probe_12_groups.txt"
