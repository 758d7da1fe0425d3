#!/bin/bash
# v28 call 20 (H100): orient_probe.py --m12 --sustain 3 on commit 14ee108's gettpy (_old14/: #12's B in five 32-column
# atoms under the 64-byte swizzle, 52 KB stages in 4 KB boxes) and then on today's (three 64-column atoms, 56 KB), each
# beside torch.matmul in its own process: time and energy a call under the power cap
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1
(cd _old14 && PYTHONPATH=$PWD timeout 250 python3 ../tccg/results/v28_h100/orient_probe.py --m12 --sustain 3) 2>&1 \
  | tee "$out/old14.txt"
PYTHONPATH=$PWD timeout 250 python3 tccg/results/v28_h100/orient_probe.py --m12 --sustain 3 2>&1 | tee "$out/now.txt"
