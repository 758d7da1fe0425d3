#!/bin/bash
# v24 after the second review's mends (H100): the shared wgmma issue (wg_mma), the shared median loop (graphs.timed_median)
# and the launcher's pointer tuple: graph / tuner / TMA-store / tail-column / persistent GPU tests, then #2, #12, #20 f16
# through `python -m tccg --interleave` (torch the only peer).
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_graphs.py tests/test_gpu_tune.py tests/test_gpu_persistent.py \
  2>&1 | tail -3 | tee "$out/tests.txt"
timeout 200 python3 -m tccg --cases 2,12,20 --dtype f16 --order F --no-plots --interleave --out "$out" 2>&1 \
  | grep -v "tccg gpu" > "$out/log.txt"
grep -E "verified|slower|interleaved|^ *(2|12|20) " "$out/log.txt"
