#!/bin/bash
# v28 call 19 (H100): orient_probe.py --m12 --patch desc,pp:noatom2 --sustain 3: #12's heuristic kernel with its
# wgmma descriptors built once a stage (fewer instructions) and without B's third column atom (48 KB stages; D wrong
# in 32 of each tile's 160 columns), beside the heuristic and torch, timed round-robin and sustained under the cap
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 400 python3 tccg/results/v28_h100/orient_probe.py --m12 --patch desc,pp:noatom2 --sustain 3 2>&1 \
  | tee "$out/orient.txt"
