#!/bin/bash
# v26 call 3b (H100), right after call 3 on the same machine (whose probe stopped at epi_probe's store-text assert,
# mended in bal_probe.py at 4e61123): #12 f16 on the review's mend (plain) against the call sites as before it (inline)
# and torch.einsum, timed in turn twice. Runs on commit 4e61123's code (the mend was then taken back).
out=${1:-$OUT/call3b}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
V=plain,inline,torch
timeout 80 python3 tccg/results/v26_h100/bal_probe.py 300 $V 2>&1 | tee "$out/timed.txt"
timeout 80 python3 tccg/results/v26_h100/bal_probe.py 300 $V 2>&1 | tee "$out/timed2.txt"
