#!/bin/bash
# v23 after the review mends (H100): the TMA-store and TMA-map GPU tests (tma.py's maps now built by one helper), and
# #2 / #12 f16 through `python -m tccg --interleave` (tccg.timing.Runner without its unused launch field; no cuTENSOR
# in this call, so torch is the only peer).
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py tests/test_gpu_wgmma.py -k "tma" 2>&1 | tail -2 | tee "$out/tests.txt"
timeout 200 python3 -m tccg --cases 2,12 --dtype f16 --order F --no-plots --interleave --out "$out" 2>&1 | grep -v "tccg gpu" > "$out/log.txt"
grep -E "verified|slower|interleaved" "$out/log.txt"
