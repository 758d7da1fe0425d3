#!/bin/bash
# v26 call 1 (H100): the persistent and cluster GPU tests (with test_persistent_balanced_columns), then #12 f16 on
# balanced tile columns against v25's grid, the turn alone, the balance alone and torch.einsum, timed in turn twice
# (bal_probe.py), then `python -m tccg --cases 12 --dtype f16 --interleave` (torch the only peer).
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee "$out/gpu.txt"
timeout 420 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py tests/test_gpu_cluster.py 2>&1 \
  | tail -8 | tee "$out/tests.txt"
V=plain,unbal,unbal5,bal1,torch  # (at 15a706d plain was the balanced kernel; on later code give bal,unbal,unbal5,bal1,torch)
timeout 150 python3 tccg/results/v26_h100/bal_probe.py 300 $V 2>&1 | tee "$out/timed.txt"
timeout 150 python3 tccg/results/v26_h100/bal_probe.py 300 $V 2>&1 | tee "$out/timed2.txt"
timeout 240 python3 -m tccg --cases 12 --dtype f16 --order F --no-plots --interleave --out "$out/tccg" 2>&1 \
  | tail -25 | tee "$out/tccg.txt"
grep "12 f16" "$out/timed.txt" "$out/timed2.txt"
