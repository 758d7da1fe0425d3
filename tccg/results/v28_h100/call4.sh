#!/bin/bash
# v28 call 4 (H100): wgmma_bench.py again on the variants calls 2 and 3 timed with their wgmmas serialised by ptxas
# (C7515; the probe now refuses such a kernel): releases into the cluster with a loader waiting (relc), the copy ring
# (pipe), each alone and in clusters of 2
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 400 python3 tccg/results/v28_h100/wgmma_bench.py base base+rel base+relc base+relc+c2 base+relc+c2+skew700 \
  base+noise base+pipe base+pipe+c2 base+pipe+bk base+pipe+c2+bk base+pipe+c2+n128 base+pipe+wg1 base+pipe+c2+wg1 \
  base 2>&1 | tee "$out/bench.txt"
