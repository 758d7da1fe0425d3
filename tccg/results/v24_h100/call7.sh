#!/bin/bash
# v24 call 7 (H100): #12 f16's second tile inside (kloop_probe stamps: its first stage's wait, k-tiles 0-3, the steady
# k-tiles, the last k-tile with the epilogue) on the heuristic kernel, on 3 stages (s3) and with TMA stores (tmast).
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 150 python3 tccg/results/v24_h100/kloop_probe.py stamps "$out" 12,12:s3,12:tmast,12 2>&1 | tee "$out/stamps.txt"
