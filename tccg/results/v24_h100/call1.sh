#!/bin/bash
# v24 call 1 (H100): #12 f16's k-loop in cuBLAS's order (kloop_probe.py early, early3) and block by block (mfirst)
# against plain and torch.einsum: Nsight Compute twice, then timed in turn.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv | tee "$out/gpu.txt"
PROBE=tccg/results/v24_h100/kloop_probe.py bash tccg/results/v23_h100/ncu_pair.sh "$out" plain,early,mfirst,early3,torch
timeout 150 python3 tccg/results/v24_h100/kloop_probe.py 300 plain,early,mfirst,early3,torch 2>&1 | tee "$out/timed.txt"
