#!/bin/bash
# v29 call 14 (H100): share_probe.py on #12 and M = N = 5120 with the heuristic's kernel releasing each stage with one
# arrival per computing warpgroup and CTA (`wgrel`: 4 a stage on each empty barrier, not 16), beside the heuristic
# and torch, round-robin and sustained 3 s
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 400 python3 tccg/results/v29_h100/share_probe.py --patch wgrel --sustain 3 2>&1 | tee "$out/share.txt"
