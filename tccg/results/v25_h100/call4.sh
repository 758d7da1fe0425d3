#!/bin/bash
# v25 call 4 (H100): where 128-row tiles lose (call 2: cooperative 128 x 160 1.72x the heuristic's time, about 1100
# cycles a k-tile against 640 of tensor work). #12 f16: `halfmma` (the heuristic's loads, half its wgmmas), 128-row
# tiles without clusters, torch.einsum; timed in turn and under Nsight Compute.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
V=plain,halfmma,co128x160_5c1,pp128x160_5c1,co256x160_4c1,torch
timeout 150 python3 tccg/results/v25_h100/pp_probe.py 200 $V 2>&1 | tee "$out/timed.txt"
PROBE=tccg/results/v25_h100/pp_probe.py bash tccg/results/v23_h100/ncu_pair.sh "$out" plain,halfmma,co128x160_5c1 \
  2>&1 | tee "$out/ncu.txt"
