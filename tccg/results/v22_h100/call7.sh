#!/bin/bash
# v22 call 7 (H100): headline3's #41 f16 ran 0.0421 ms against 0.0345 in every earlier headline, its kernel unchanged:
# #41's core with D at 14 offsets into one allocation (offset_probe.py, 100 rounds, twice), then #41 end to end alone
# and after #12, twice each.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
for i in 1 2; do timeout 100 python3 tccg/results/v22_h100/offset_probe.py 100 2>&1 | tee "$out/offsets$i.txt"; done
for c in 41 12,41 41 12,41; do timeout 60 python3 -m tccg --cases $c --dtype f16 --order F --no-plots --no-peers --out "$out/e2e_$c" 2>&1 | grep -E "^ *41 " | tee -a "$out/e2e.txt"; done
