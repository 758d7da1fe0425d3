#!/bin/bash
# v28 call 10 (H100): wgmma_bench.py's clustered copy ring with a stage's A copied once this CTA's warps released it
# and B's multicast half once the peer's did too (split), against the kernel's one barrier counting both CTAs' warps
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 400 python3 tccg/results/v28_h100/wgmma_bench.py base+pipe+c2 base+pipe+c2+split base+pipe+c2+wg1 \
  base+pipe+c2+split+wg1 base+pipe+c2+skew700 base+pipe+c2+split+skew700 base+pipe+c2+bk base+pipe+c2+split+bk \
  base+pipe+c2 base+pipe+c2+split 2>&1 | tee "$out/bench.txt"
