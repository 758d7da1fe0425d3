#!/bin/bash
# v28 call 1 (H100): wgmma_bench.py, #12 f16's wgmma stream in a bare kernel, shapes, layouts, orders, copies beside
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv | tee "$out/gpu.txt"
timeout 400 python3 tccg/results/v28_h100/wgmma_bench.py base base+o1 base+o2 base+nofence base+wg1 base+l1 \
  base+bk base+am base+am+bk n128 n192 n256+l1 n128+l1 n64 base+noise base+bk+noise base+o2+noise n128+noise \
  base 2>&1 | tee "$out/bench.txt"
