#!/bin/bash
# v28 call 5 (H100): wgmma_bench.py with stages 32 deep in k (8 of them in the same shared memory as 4 of 64; the
# K-major A 64-byte swizzled) against 64, bare and in the copy ring, alone and in clusters of 2
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 400 python3 tccg/results/v28_h100/wgmma_bench.py base k32+s8 base+pipe k32+s8+pipe base+pipe+c2 k32+s8+pipe+c2 \
  k32+s6+pipe+c2 k32+s4+pipe+c2 base+s3+pipe+c2 base+pipe+c2+wg1 k32+s8+pipe+c2+wg1 k32+s8+pipe+c2+bk base+pipe+c2 \
  k32+s8+pipe+c2 2>&1 | tee "$out/bench.txt"
