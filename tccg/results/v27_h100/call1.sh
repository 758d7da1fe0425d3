#!/bin/bash
# v27 call 1 (H100): the direct epilogue with 16-byte vectors (KernelSpec.quad_d) on #12 f16 against the heuristic's
# chunked epilogue: the persistent direct / chunked GPU tests, then quad_probe.py timed in turn twice, the second pass
# in reverse order.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee "$out/gpu.txt"
timeout 200 python3 -m pytest -q -x tests/test_gpu_persistent.py -k "direct or chunked" 2>&1 | tail -5 | tee "$out/tests.txt"
V=plain,quad,pairs,quadlate3000,quadlate20000,torch
R=torch,quadlate20000,quadlate3000,pairs,quad,plain
timeout 200 python3 tccg/results/v27_h100/quad_probe.py 300 $V 2>&1 | tee "$out/timed.txt"
timeout 200 python3 tccg/results/v27_h100/quad_probe.py 300 $R 2>&1 | tee "$out/timed2.txt"
grep "12 f16" "$out/timed.txt" "$out/timed2.txt"
