#!/bin/bash
# v21 call 7 (H100): is it the TMA boxes of 8 rows, or TMA itself, that made #2 slower (call1)? #2's data with
# A's rows contiguous (rows_probe.py: M one stride term, 256-row boxes), cp.async heuristic against TMA tiles;
# then #2's own core for comparison.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1
PYTHONPATH=. timeout 200 python3 tccg/results/v21_h100/rows_probe.py 7 2>&1 | tee "$out/rows_probe.txt"
timeout 90 python3 -m tccg.tile_probe --cases 2 --dtype f16 --rounds 7 --paths none 2>&1 | grep "^ 2" | tee "$out/probe_2.txt"
