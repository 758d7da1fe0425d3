#!/bin/bash
# v26 call 2 (H100): #12 f16 with its CTA's next tile's first k-tiles of A (and B) prefetched into the L2 ahead of the
# tile boundary (bal_probe.py pfaN_D, pfabN_D), and with the odd clusters started a little late (oddN), against the
# heuristic and torch.einsum, timed in turn twice. (As first run, at 3a306cb, every variant after pfa4_8
# ran pfa4_8's kernel: bal_probe.fresh mends that; call2b.sh is the run on the mended probe.)
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee "$out/gpu.txt"
V=plain,pfa4_8,pfa8_16,pfab4_8,odd2000,odd6000,torch
timeout 200 python3 tccg/results/v26_h100/bal_probe.py 300 $V 2>&1 | tee "$out/timed.txt"
timeout 200 python3 tccg/results/v26_h100/bal_probe.py 300 $V 2>&1 | tee "$out/timed2.txt"
grep "12 f16" "$out/timed.txt" "$out/timed2.txt"
