#!/bin/bash
# v29 call 1 (H100): the cluster GPU tests (share_a's new ones with them), then share_probe.py on #12 and M = N = 5120:
# the heuristic, share_a, share_a with raster groups of 8 and of 2, round-robin and sustained 3 s under the cap
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 200 python3 -m pytest -q -x tests/test_gpu_cluster.py -p no:cacheprovider 2>&1 | tail -15 | tee "$out/tests.txt"
timeout 330 python3 tccg/results/v29_h100/share_probe.py share_a=1 share_a=1+group_m=8 share_a=1+group_m=2 \
  --sustain 3 2>&1 | tee "$out/share.txt"
