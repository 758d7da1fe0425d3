#!/bin/bash
# v21 call 11 (H100): the heuristic's TMA tiles over straddled slabs (boxes of 8 / 24 / 40 rows, either input)
# on six compute-bound shapes, against the cp.async tile the heuristic took before (256 x 128 x 64 / 4 wgmma).
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1
PYTHONPATH=. timeout 500 python3 tccg/results/v21_h100/boxes_probe.py 5 "256x128x64/4@64x128w" 2>&1 | tee "$out/boxes_probe.txt"
