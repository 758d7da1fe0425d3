#!/bin/bash
# v27 call 2 (H100): #12 f16 with the k-tile D further on prefetched into the L2 once a wave (quad_probe.py's ahXD),
# timed in turn twice, the second pass in reverse order.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee "$out/gpu.txt"
V=plain,ahAB4,ahAB8,ahAB16,ahA8,ahB8,quad+ahAB8,torch
R=torch,quad+ahAB8,ahB8,ahA8,ahAB16,ahAB8,ahAB4,plain
timeout 280 python3 tccg/results/v27_h100/quad_probe.py 300 $V 2>&1 | tee "$out/timed.txt"
timeout 280 python3 tccg/results/v27_h100/quad_probe.py 300 $R 2>&1 | tee "$out/timed2.txt"
grep "12 f16" "$out/timed.txt" "$out/timed2.txt"
