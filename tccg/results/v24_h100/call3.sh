#!/bin/bash
# v24 call 3 (H100): #12 f16's per-CTA timeline (kloop_probe.py stamps: %globaltimer at each CTA's entry, its
# computing warps' start and each tile's end) on the code with ws_stage.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 120 python3 tccg/results/v24_h100/kloop_probe.py stamps "$out" 2>&1 | tee "$out/stamps.txt"
