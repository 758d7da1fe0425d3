#!/bin/bash
# v19 call 2 (H100): the f64 tensor-core cores on k-major packs (the schedule packs an input the tile would
# read as 4-byte copies), tile shapes; the f32 simt heuristic in the same call. Usage: bash call2.sh OUTDIR
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1
timeout 400 python3 -m tccg.tile_probe --cases 20,21,28,12 --dtype f32 --compute f64 --rounds 3 \
  --tiles "128x128x32/3@64x32,128x128x32/4@64x32,128x64x16/4@64x32:b2,128x64x32/3@64x32:b2,128x128x16/4@64x32:k132,64x128x16/4@32x64:b2,128x128x64/2@64x32" 2>&1 | tee "$out/dmma.txt"
timeout 150 python3 -m tccg.tile_probe --cases 20,21,28,12 --dtype f32 --rounds 3 --paths none 2>&1 | tee "$out/simt.txt"
grep -h " ms " "$out/dmma.txt" "$out/simt.txt"; grep -A12 "== against" "$out/dmma.txt" | head -12
