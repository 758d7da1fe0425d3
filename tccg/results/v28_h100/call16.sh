#!/bin/bash
# v28 call 16 (H100): rest_last and along-m GPU tests, then orient_probe.py --m12 --flip cluster=1+rest_last=1
# --sustain 3: #12 flipped without clusters, its 16-row tile row's tiles to the CTAs with one whole tile fewer
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py -k "along_m or rest_last" 2>&1 \
  | tail -6 | tee "$out/tests.txt"
timeout 400 python3 tccg/results/v28_h100/orient_probe.py --m12 --flip cluster=1+rest_last=1 --sustain 3 2>&1 \
  | tee "$out/orient.txt"
