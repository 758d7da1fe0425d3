#!/bin/bash
# v29 call 4 (H100): tma_box_probe.py (where boxes narrower than the 128-byte swizzle land), after call 3's half-atom
# kernels faulted with an illegal address
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 120 python3 tccg/results/v29_h100/tma_box_probe.py 2>&1 | tee "$out/box.txt"
