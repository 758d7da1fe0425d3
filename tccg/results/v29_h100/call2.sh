#!/bin/bash
# v29 call 2 (H100): pitch_probe.py (#12 with each operand's pitch padded to a multiple of 128 bytes, torch on both),
# then share_probe.py with the heuristic's tile on 3 stages, without serpentine k-walks, and on raster groups of 8
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 250 python3 tccg/results/v29_h100/pitch_probe.py --sustain 3 2>&1 | tee "$out/pitch.txt"
timeout 300 python3 tccg/results/v29_h100/share_probe.py stages=3 serpentine=0 group_m=8 --sustain 3 2>&1 \
  | tee "$out/share.txt"
