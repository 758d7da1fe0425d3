#!/bin/bash
# v28 call 11 (H100): wgmma_bench.py's copy ring on cuBLAS's depth for #12 (nvjet 256x160_64x3_2x1: 3 stages, its
# 188.59 KB of shared memory in results/v23_h100/call10/details_torch.txt fitting 3 x 52 KB + 32 KB), against 4 stages
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 400 python3 tccg/results/v28_h100/wgmma_bench.py base+pipe+c2+bk+s3 base+pipe+c2+s3 base+pipe+bk+s3 base+pipe+s3 \
  base+pipe+c2+bk base+pipe+bk base+pipe+c2+bk+s3+ch32768 base+pipe+bk+s3+ch32768 2>&1 | tee "$out/bench.txt"
