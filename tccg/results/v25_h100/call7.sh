#!/bin/bash
# v25 call 7 (H100): #12 f16's raster group height again, now that each group's columns are turned (gett.cuh
# tile_coords; session 18 measured 2-20 rows before): pp_probe.py gN against the heuristic's 4 and torch.einsum, timed
# in turn twice.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
V=plain,g2,g6,g8,g10,torch
timeout 120 python3 tccg/results/v25_h100/pp_probe.py 300 $V 2>&1 | tee "$out/timed.txt"
timeout 120 python3 tccg/results/v25_h100/pp_probe.py 300 $V 2>&1 | tee "$out/timed2.txt"
