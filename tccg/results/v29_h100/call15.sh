#!/bin/bash
# v29 call 15 (H100): the half-atom GPU tests (with the balanced case), the tuner's and the einsum-level GPU tests
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 560 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_half_atom.py tests/test_gpu_tune.py tests/test_gpu.py \
  2>&1 | tail -8 | tee "$out/tests.txt"
