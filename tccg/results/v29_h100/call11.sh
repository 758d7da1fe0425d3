#!/bin/bash
# v29 call 11 (H100): share_probe.py on #12 and M = N = 5120 (the heuristic now has half_atom): without clusters
# (52 KB a stage from L2 per CTA, no multicast), without clusters on raster groups of 8, and with share_a,
# round-robin and sustained 3 s under the cap
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 400 python3 tccg/results/v29_h100/share_probe.py cluster=1 cluster=1+group_m=8 share_a=1 --sustain 3 2>&1 \
  | tee "$out/share.txt"
