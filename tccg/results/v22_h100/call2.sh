#!/bin/bash
# v22 call 2 (H100): why call 1's trimmed #12 ran slower. The trimmed-column GPU tests (shapes with more tiles than
# CTAs, which call 1's did not have), then #12 f16's core in six variants of the header (variants_probe.py: v21,
# untrimmed, trimmed, trimmed without the turn, the turn alone, trims on n = 160 wgmmas), round-robin, 15 rounds, twice.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > "$out/gpu.txt"
timeout 120 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py -k trimmed 2>&1 | tail -15 | tee "$out/tests.txt"
for i in 1 2; do timeout 150 python3 tccg/results/v22_h100/variants_probe.py 15 2>&1 | tee "$out/variants$i.txt"; done
