#!/bin/bash
# v28 call 2 (H100): wgmma_bench.py with the kernel's ring around the wgmmas: releases, a late warpgroup, the pipe
# of copies and waits, clusters of 2 with multicast
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv | tee "$out/gpu.txt"
timeout 400 python3 tccg/results/v28_h100/wgmma_bench.py base base+rel base+skew700 base+rel+skew700 base+noise \
  base+pipe base+pipe+c2 base+pipe+c2+skew700 base+pipe+bk base+pipe+c2+bk base+pipe+wg1 base+pipe+c2+n128 base \
  2>&1 | tee "$out/bench.txt"
