#!/bin/bash
# Session 11, call 5: probe5.py (the core of #2 in its big input's order into a workspace, TMA vs cp.async).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$PWD
T="128x256x64/4@64x256wt,128x192x64/5@64x192wt,128x128x64/6@64x128wt,128x128x64/6@64x128wtp,128x192x64/5@64x192wtp,128x256x64/4@64x256wtp,128x128x64/6@64x128wx,128x64x64/8@64x64wtp"
timeout 200 python3 tccg/results/v14_h100/probe5.py "$T" 2>&1 | tee $OUT/probe5.txt
echo "== summary"; grep " us " $OUT/probe5.txt
