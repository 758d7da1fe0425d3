#!/bin/bash
# v22 final code (H100): the GPU tests of the wgmma paths the k-tail skip and the serpentine walk touch (wgmma, persistent,
# cluster, narrow warp-specialised, stream-K, dmma), the tuner's and the peers', then #2 / #12 / #20 end to end once.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 420 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_wgmma.py tests/test_gpu_persistent.py tests/test_gpu_cluster.py \
  tests/test_gpu_narrow_ws.py tests/test_gpu_stream_k.py tests/test_gpu_dmma.py tests/test_gpu_tune.py tests/test_gpu_peers.py 2>&1 | tail -4 | tee "$out/tests.txt"
timeout 90 python3 -m tccg --cases 2,12,20 --dtype f16 --order F --no-plots --out "$out/e2e" 2>&1 | tail -8 | grep -E "slower|verified" | tee "$out/e2e.txt"
