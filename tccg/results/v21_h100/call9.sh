#!/bin/bash
# v21 call 9 (H100): boxes_probe.py, a compute-bound contraction whose tensor maps need 8- or 24-row boxes
# (the heuristic's cp.async tile against TMA tiles); then rows_probe.py again (3 rounds) after its refactor.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1
PYTHONPATH=. timeout 300 python3 tccg/results/v21_h100/boxes_probe.py 5 2>&1 | tee "$out/boxes_probe.txt"
PYTHONPATH=. timeout 200 python3 tccg/results/v21_h100/rows_probe.py 3 2>&1 | tee "$out/rows_probe.txt"
