#!/bin/bash
# Session 9, call 3: SM clock and power of #12's core (heuristic, aligned stream-K tail) against torch.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
PYTHONPATH=. python3 tccg/results/v12_h100/clock_probe.py 12 "128x256x64/4@64x256wt:k132:s2" 2>&1 | tee $OUT/clock_12.txt
