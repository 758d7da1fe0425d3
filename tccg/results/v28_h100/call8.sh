#!/bin/bash
# v28 call 8 (H100): wgmma_bench.py's copy ring on #12's other orientation (A MN-major 256 rows in 4 atoms, B K-major
# 160 rows: 52 KB a stage, nothing fetched past the tile), alone and in clusters of 2, against the kernel's
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 400 python3 tccg/results/v28_h100/wgmma_bench.py base+pipe base+pipe+am+bk base+pipe+c2+am+bk base+pipe+bk \
  base+pipe+c2 base+pipe+am+bk+wg1 base+pipe+bk+wg1 base+pipe base+pipe+am+bk base+pipe+bk 2>&1 | tee "$out/bench.txt"
