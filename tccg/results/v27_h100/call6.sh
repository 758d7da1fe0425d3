#!/bin/bash
# v27 call 6 (H100): #12 f16 with its mbarrier waits polled by test_wait or given a suspend time hint (quad_probe.py's
# testwait, hintN): the stage round trip recorded (rec_probe.py), then timed in turn twice, the second pass reversed.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee "$out/gpu.txt"
timeout 150 python3 tccg/results/v27_h100/rec_probe.py plain testwait hint20 2>&1 | tee "$out/rec.txt"
V=plain,testwait,hint20,hint1000,torch
R=torch,hint1000,hint20,testwait,plain
timeout 180 python3 tccg/results/v27_h100/quad_probe.py 300 $V 2>&1 | tee "$out/timed.txt"
timeout 180 python3 tccg/results/v27_h100/quad_probe.py 300 $R 2>&1 | tee "$out/timed2.txt"
grep "12 f16\|period\|boundaries" "$out/rec.txt" "$out/timed.txt" "$out/timed2.txt"
