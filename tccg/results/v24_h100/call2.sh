#!/bin/bash
# v24 call 2 (H100): gett.cuh's two-group stage (ws_stage, cuBLAS's order) in place: the GPU tests of the wgmma,
# persistent, cluster, narrow, stream-K and tuner paths, then #2 / #12 f16 through `python -m tccg --interleave`
# (torch the only peer: no cuTENSOR in this call).
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 420 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_wgmma.py tests/test_gpu_persistent.py tests/test_gpu_cluster.py \
  tests/test_gpu_narrow_ws.py tests/test_gpu_stream_k.py tests/test_gpu_tune.py 2>&1 | tail -4 | tee "$out/tests.txt"
timeout 150 python3 -m tccg --cases 2,12 --dtype f16 --order F --no-plots --interleave --out "$out" 2>&1 | grep -v "tccg gpu" > "$out/log.txt"
grep -E "verified|slower|interleaved|^ *(2|12) " "$out/log.txt"
