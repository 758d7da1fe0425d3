#!/bin/bash
# v30 call 4 (H100): the row-stream tile's GPU tests on the final code, the forced ws tile's, the tuner's (its #2
# variants), the peers' and the einsum-level GPU tests
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv | tee "$out/gpu.txt"
timeout 560 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_rows.py tests/test_gpu_narrow_ws.py \
  tests/test_gpu_tune.py tests/test_gpu_peers.py tests/test_einsum_cases.py tests/test_gpu.py 2>&1 | tail -15 | tee "$out/tests.txt"
