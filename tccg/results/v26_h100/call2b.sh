#!/bin/bash
# v26 call 2b (H100): call 2 on the mended probe (each variant its own kernel), with D's stores plain (stplain) and
# st.global.cs (stcs) against the heuristic's st.global.cg, which v25's call 9 did not in fact compare.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee "$out/gpu.txt"
V=plain,stplain,stcs,pfa2_4,pfab4_8,odd2000,odd6000,torch
timeout 220 python3 tccg/results/v26_h100/bal_probe.py 300 $V 2>&1 | tee "$out/timed.txt"
timeout 220 python3 tccg/results/v26_h100/bal_probe.py 300 $V 2>&1 | tee "$out/timed2.txt"
grep "12 f16" "$out/timed.txt" "$out/timed2.txt"
