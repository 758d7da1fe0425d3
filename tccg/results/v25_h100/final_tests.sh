#!/bin/bash
# v25 final tests (H100), after the review: the ping-pong GPU tests (k-loops several times round the stages, a cluster's
# padding tile row, CTAs walking 2 or 3 tiles) and the rest of the persistent and cluster tests.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 400 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py tests/test_gpu_cluster.py 2>&1 \
  | tail -6 | tee "$out/tests.txt"
