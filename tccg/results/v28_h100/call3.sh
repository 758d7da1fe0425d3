#!/bin/bash
# v28 call 3 (H100): wgmma_bench.py: the kernel's releases into both CTAs of a cluster with a loader waiting on them
# (relc), and v27's clock64 stamps (stamp), each alone and together
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 400 python3 tccg/results/v28_h100/wgmma_bench.py base base+relc base+relc+c2 base+relc+c2+skew700 base+stamp \
  base+relc+c2+stamp base+pipe+c2+o0 base 2>&1 | tee "$out/bench.txt"
