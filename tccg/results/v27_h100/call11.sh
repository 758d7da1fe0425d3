#!/bin/bash
# v27 call 11 (H100): #12 f16's k-loop with neither the loader copying anything nor the computing warps waiting for
# their stages (nowait+noload): the wgmmas and the stage handshakes alone, stamped by rec_probe.py. A first run with
# nowait alone (the copies still issued) ended in an unspecified launch failure, most likely stages refilled before
# their copies landed (rec_first.txt).
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 150 python3 tccg/results/v27_h100/rec_probe.py plain nowait+noload 2>&1 | grep -v warpgroup | tee "$out/rec.txt"
# call 11b: the same with v23's one-group orders and the descriptors built once a stage (rec_b.txt)
timeout 150 python3 tccg/results/v27_h100/rec_probe.py nowait+noload+inter1 nowait+noload+mfirst1 nowait+noload+desc 2>&1 \
  | grep -v warpgroup | tee "$out/rec_b.txt"
