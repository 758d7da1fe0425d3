#!/bin/bash
# v21 call 13 (H100), after the review mends (EPI_COLS chosen once, in kernels/spec.py, and passed to the kernel;
# tile_probe.round_robin shared with rows_probe.py): the persistent / chunked and cluster GPU tests, then #12 and #2's
# cores through tile_probe and rows_probe.py (one round each) to run the shared timing loop.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py tests/test_gpu_cluster.py 2>&1 | tail -3 | tee "$out/tests.txt"
timeout 90 python3 -m tccg.tile_probe --cases 2,12 --dtype f16 --rounds 1 --paths none 2>&1 | grep -E "^ ?(2|12) " | tee "$out/probe.txt"
PYTHONPATH=. timeout 120 python3 tccg/results/v21_h100/rows_probe.py 1 2>&1 | tee "$out/rows_probe.txt"
