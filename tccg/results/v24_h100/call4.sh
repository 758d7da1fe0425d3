#!/bin/bash
# v24 call 4 (H100): call 3's per-CTA timeline again for #12 f16, with each CTA's SM clock (clock64 over its computing
# warps' span), then the same for #2 f16 (kloop_probe.py stamps, CTAs of 2-3 tiles).
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 120 python3 tccg/results/v24_h100/kloop_probe.py stamps "$out" 12,2 2>&1 | tee "$out/stamps.txt"
