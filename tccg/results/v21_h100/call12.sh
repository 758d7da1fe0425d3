#!/bin/bash
# v21 call 12 (H100): call 11's comparison with f16 inputs and an f32 output (the heuristic over straddled slabs
# against the cp.async 256 x 128 x 64 / 4 wgmma tile).
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1
PYTHONPATH=. timeout 500 python3 tccg/results/v21_h100/boxes_probe.py 5 "256x128x64/4@64x128w" f16,f32 2>&1 | tee "$out/boxes_probe_f32out.txt"
