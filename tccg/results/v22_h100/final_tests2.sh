#!/bin/bash
# v22 final code after the pragma fix (H100): the GPU tests of final_tests.sh again, then #2, #12 and #41 (headline3's
# one case behind a peer, 0.0421 ms against 0.0346 in the two headlines before it, its kernel unchanged) end to end,
# three times.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 400 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_wgmma.py tests/test_gpu_persistent.py tests/test_gpu_cluster.py \
  tests/test_gpu_narrow_ws.py tests/test_gpu_stream_k.py tests/test_gpu_dmma.py tests/test_gpu_tune.py tests/test_gpu_peers.py 2>&1 | tail -4 | tee "$out/tests.txt"
for i in 1 2 3; do timeout 60 python3 -m tccg --cases 2,12,41 --dtype f16 --order F --no-plots --out "$out/e2e$i" 2>&1 | tail -8 | grep -E "slower" | tee "$out/e2e$i.txt"; done
