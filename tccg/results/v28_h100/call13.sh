#!/bin/bash
# v28 call 13 (H100): orient_probe.py --m12: #12 itself (M = 5136) on its heuristic tile beside M = 5120 in both
# orientations, each beside torch.matmul on the same inputs, in the same round-robin, twice
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
for i in 1 2; do
  timeout 250 python3 tccg/results/v28_h100/orient_probe.py --m12 cluster=1 2>&1 | tee "$out/orient_$i.txt"
done
