#!/bin/bash
# v27 call 4 (H100): #12 f16's stage round trip and tile boundaries recorded (rec_probe.py) on the heuristic kernel, on
# 3 stages and with each stage's wgmma descriptors built once (desc); then desc timed in turn against the heuristic
# kernel twice, the second pass in reverse order.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee "$out/gpu.txt"
timeout 200 python3 tccg/results/v27_h100/rec_probe.py plain desc s3 quad 2>&1 | tee "$out/rec.txt"
timeout 150 python3 tccg/results/v27_h100/quad_probe.py 300 plain,desc,torch 2>&1 | tee "$out/timed.txt"
timeout 150 python3 tccg/results/v27_h100/quad_probe.py 300 torch,desc,plain 2>&1 | tee "$out/timed2.txt"
grep "12 f16" "$out/timed.txt" "$out/timed2.txt"
