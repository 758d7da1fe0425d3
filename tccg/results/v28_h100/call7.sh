#!/bin/bash
# v28 call 7 (H100): wgmma_bench.py's copy ring in clusters of 2 without multicast (each CTA copies its own B; the
# releases still cross), against multicast and against no cluster, all and half the wgmmas
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 400 python3 tccg/results/v28_h100/wgmma_bench.py base+pipe+c2 base+pipe+c2+nomc base+pipe \
  base+pipe+c2+nomc+wg1 base+pipe+c2+wg1 base+pipe+wg1 base+pipe+c2+bk base+pipe+c2+nomc+bk base+pipe+bk \
  base+pipe+c2 base+pipe+c2+nomc base+pipe 2>&1 | tee "$out/bench.txt"
