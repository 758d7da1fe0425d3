#!/bin/bash
# v28 call 14 (H100): orient_probe.py --m12 cluster=1 --sustain 3: the entries of call 13 run back to back for 3 s each,
# forward then reversed, with nvidia-smi's SM clock and board power: time, clock and energy a call under the power cap
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,power.limit,enforced.power.limit,clocks.max.sm --format=csv | tee "$out/gpu.txt"
timeout 300 python3 tccg/results/v28_h100/orient_probe.py --m12 cluster=1 --sustain 3 2>&1 | tee "$out/sustain.txt"
