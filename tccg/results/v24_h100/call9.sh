#!/bin/bash
# v24 call 9 (H100): #2 f16's persistent core on 132, 128, 124, 121, 120 and 116 CTAs (grid_probe.py), twice.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
for i in 1 2; do timeout 120 python3 tccg/results/v24_h100/grid_probe.py 2 132,128,124,121,120,116 5 2>&1 | tee -a "$out/grid.txt"; done
