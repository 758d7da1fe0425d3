#!/bin/bash
# v29 call 5 (H100): the half-atom GPU tests on half_atom's second form (a 2-d map of B with boxes of 32 columns, after
# call 4), then share_probe.py on #12 and M = N = 5120 with half_atom and half_atom + share_a beside the heuristic and
# torch, round-robin and sustained 3 s under the cap
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 150 python3 -m pytest -q -x tests/test_gpu_half_atom.py -p no:cacheprovider 2>&1 | tail -30 | tee "$out/tests.txt"
timeout 330 python3 tccg/results/v29_h100/share_probe.py half_atom=1 half_atom=1+share_a=1 --sustain 3 2>&1 \
  | tee "$out/share.txt"
