#!/bin/bash
# v21 call 8 (H100): the device's plain read rate on #2's 57.6 MB input (read_probe.py), against #2's core.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1
PYTHONPATH=. timeout 120 python3 tccg/results/v21_h100/read_probe.py 2>&1 | tee "$out/read_probe.txt"
timeout 90 python3 -m tccg.tile_probe --cases 2 --dtype f16 --rounds 7 --paths none 2>&1 | grep "^ 2" | tee "$out/probe_2.txt"
