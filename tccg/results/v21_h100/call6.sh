#!/bin/bash
# v21 call 6 (H100): the final code (TMA boxes of gcd(slab, tile rows) rows; row_prefetch reverted): the GPU tests
# of every TMA / warp-specialised / persistent / cluster / stream-K path, then #2, #12, #20 end to end in f16
# against torch (no cuTENSOR here), a check that the heuristic kernels (SASS as v20's) run as before.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee "$out/gpu.txt"
timeout 420 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_wgmma.py tests/test_gpu_cluster.py \
  tests/test_gpu_persistent.py tests/test_gpu_stream_k.py tests/test_gpu_narrow_ws.py 2>&1 | tail -3 | tee "$out/tests.txt"
timeout 150 python3 -m tccg --cases 2,12,20 --dtype f16 --order F --no-plots --out "$out/e2e" 2>&1 \
  | grep -E "^ +(2|12|20) |verified|slower" | tee "$out/e2e.txt"
