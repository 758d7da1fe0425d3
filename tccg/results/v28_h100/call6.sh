#!/bin/bash
# v28 call 6 (H100): wgmma_bench.py's copy ring with A's 32 KB a stage in copies of 4, 8, 16 and 32 KB (B's multicast
# half one copy), in clusters of 2 and alone, with all and with half the wgmmas
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 400 python3 tccg/results/v28_h100/wgmma_bench.py base+pipe+c2 base+pipe+c2+ch4096 base+pipe+c2+ch16384 \
  base+pipe+c2+ch32768 base+pipe+c2+wg1+ch32768 base+pipe+c2+wg1+ch4096 base+pipe+ch32768 base+pipe+ch4096 \
  base+pipe base+pipe+c2 2>&1 | tee "$out/bench.txt"
