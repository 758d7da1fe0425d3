#!/bin/bash
# v28 call 12 (H100): orient_probe.py, #12's kind of GEMM on M = N = 5120 with D column-major (56 KB stages, as #12) or
# row-major (the other orientation: 52 KB stages, nothing past the tile), each on the heuristic's 256 x 160 tile in
# clusters of 2 and without, on 4 and 3 stages, beside torch.matmul
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 500 python3 tccg/results/v28_h100/orient_probe.py cluster=1 stages=3 cluster=1+stages=3 2>&1 | tee "$out/orient.txt"
