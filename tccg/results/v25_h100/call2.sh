#!/bin/bash
# v25 call 2 (H100): ping-pong warpgroups issuing both 64-row blocks' wgmmas k-step by k-step as one group a stage
# (call 1's two groups a stage, block by block, ran 1.53x the heuristic's time): the ping-pong GPU tests; #12 f16 on
# ping-pong and on cooperative 128-row tiles against the heuristic and torch.einsum, timed in turn twice.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py -k pingpong 2>&1 | tail -4 \
  | tee "$out/tests.txt"
V=plain,pp128x160_5,pp128x128_6,co128x160_5,torch
timeout 150 python3 tccg/results/v25_h100/pp_probe.py 200 $V 2>&1 | tee "$out/timed.txt"
timeout 100 python3 tccg/results/v25_h100/pp_probe.py 200 $V 2>&1 | tee "$out/timed2.txt"
