#!/bin/bash
# v23 call 7 (H100): #12 f16 with its TMA loaders fetching k-tiles 4, 8 or 16 further on into the L2 (gett.cuh's L2_AHEAD,
# epi_probe.py aheadN), with and without D's stores, against torch.einsum; Nsight Compute forward then reversed, twice.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
bash tccg/results/v23_h100/ncu_pair.sh "$out" plain,ahead4,ahead8,ahead16,nostore,nostore+ahead8,torch
timeout 100 python3 tccg/results/v23_h100/epi_probe.py 300 plain,ahead8,torch 2>&1 | tee "$out/timed.txt"
