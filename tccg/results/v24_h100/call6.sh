#!/bin/bash
# v24 call 6 (H100): #12 f16's raster groups (kloop_probe gN: TileConfig.group_m = N tile rows; the heuristic's 4 against
# 8, 10, 12, 16) and torch.einsum under Nsight Compute twice (cycles, DRAM throughput), then timed in turn.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
V=plain,g8,g10,g12,g16,torch
PROBE=tccg/results/v24_h100/kloop_probe.py bash tccg/results/v23_h100/ncu_pair.sh "$out" $V
timeout 150 python3 tccg/results/v24_h100/kloop_probe.py 200 $V 2>&1 | tee "$out/timed.txt"
