#!/bin/bash
# v29 call 13 (H100): share_probe.py on #12 and M = N = 5120 with the heuristic's kernel patched to issue B's boxes (the
# pair's multicast half) before A's (`bfirst`), beside the heuristic and torch, round-robin and sustained 3 s
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 400 python3 tccg/results/v29_h100/share_probe.py --patch bfirst --sustain 3 2>&1 | tee "$out/share.txt"
