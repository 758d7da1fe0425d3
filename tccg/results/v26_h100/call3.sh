#!/bin/bash
# v26 call 3 (H100), on the review's mend (narrow_tile / n_limit for every grid: #12 f16 and #20 f16 compile to other
# SASS, the same logic): the persistent, cluster and wgmma GPU tests; #12 f16 mended (plain) against the call sites as
# before (inline) and torch.einsum, timed in turn twice; then `python -m tccg --cases 2,12,20 --dtype f16 --interleave`
# (torch the only peer).
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee "$out/gpu.txt"
timeout 330 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py tests/test_gpu_cluster.py \
  tests/test_gpu_wgmma.py 2>&1 | tail -6 | tee "$out/tests.txt"
V=plain,inline,torch
timeout 60 python3 tccg/results/v26_h100/bal_probe.py 300 $V 2>&1 | tee "$out/timed.txt"
timeout 60 python3 tccg/results/v26_h100/bal_probe.py 300 $V 2>&1 | tee "$out/timed2.txt"
timeout 120 python3 -m tccg --cases 2,12,20 --dtype f16 --order F --no-plots --interleave --out "$out/tccg" 2>&1 \
  | grep -v "tccg gpu" | tail -22 | tee "$out/tccg.txt"
grep "12 f16" "$out/timed.txt" "$out/timed2.txt"
