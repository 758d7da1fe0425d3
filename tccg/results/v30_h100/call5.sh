#!/bin/bash
# v30 call 5 (H100): share_probe.py on #12 and M = N = 5120, the heuristic's kernel with its odd clusters started 2, 4
# or 8 k-tiles late (`stagN`: D's write bursts at the tile boundaries split in two), beside the heuristic and torch,
# round-robin and sustained 3 s
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv | tee "$out/gpu.txt"
timeout 560 python3 tccg/results/v29_h100/share_probe.py --patch stag2,stag4,stag8 --sustain 3 2>&1 | tee "$out/share.txt"
