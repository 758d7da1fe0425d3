#!/bin/bash
# v23 call 11 (H100): #12 f16 with each warp's second 64-row round held in registers and stored during the next tile's
# k-loop (epi_probe.py trickle, gett.cuh's TRICKLE), against plain, no stores and torch.einsum; Nsight Compute twice.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
bash tccg/results/v23_h100/ncu_pair.sh "$out" plain,nostore,trickle,torch
timeout 100 python3 tccg/results/v23_h100/epi_probe.py 300 plain,trickle,torch 2>&1 | tee "$out/timed.txt"
