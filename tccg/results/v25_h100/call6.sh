#!/bin/bash
# v25 call 6 (H100): #12 f16 with each raster group's tile columns turned (pp_probe.py rotN: a CTA no longer takes the
# same column in every round), against the heuristic and torch.einsum: timed in turn twice, and under Nsight Compute.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
V=plain,rot1,rot5,rot11,rot16,torch
timeout 120 python3 tccg/results/v25_h100/pp_probe.py 300 $V 2>&1 | tee "$out/timed.txt"
PROBE=tccg/results/v25_h100/pp_probe.py bash tccg/results/v23_h100/ncu_pair.sh "$out" plain,rot1,rot11,torch \
  2>&1 | tee "$out/ncu.txt"
timeout 120 python3 tccg/results/v25_h100/pp_probe.py 300 $V 2>&1 | tee "$out/timed2.txt"
