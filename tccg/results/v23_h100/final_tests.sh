#!/bin/bash
# v23 final code (H100): the GPU tests of the wgmma, persistent (TMA stores among them), cluster, narrow, stream-K,
# f64-core, tuner and peer paths (the launcher now passes a third tensor map for TMA stores).
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 500 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_wgmma.py tests/test_gpu_persistent.py tests/test_gpu_cluster.py \
  tests/test_gpu_narrow_ws.py tests/test_gpu_stream_k.py tests/test_gpu_dmma.py tests/test_gpu_tune.py tests/test_gpu_peers.py \
  tests/test_graphs.py 2>&1 | tail -6 | tee "$out/tests.txt"
