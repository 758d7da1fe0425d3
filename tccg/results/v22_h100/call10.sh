#!/bin/bash
# v22 call 10 (H100): #12 f16's chunked epilogue with streaming D stores (stcs_probe.py: st.global.cs) against plain
# ones: Nsight Compute, plain / streaming / streaming / plain in one process, twice; then interleaved timing.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
S="--section SpeedOfLight --section MemoryWorkloadAnalysis"
for i in 1 2; do timeout 100 ncu --clock-control none $S --kernel-name regex:gett_ python3 tccg/results/v22_h100/stcs_probe.py 0 > "$out/ncu_stcs$i.txt" 2>&1; done
timeout 60 python3 tccg/results/v22_h100/stcs_probe.py 300 2>&1 | tee "$out/stcs.txt"
for f in "$out"/ncu_*.txt; do echo "== $f"; grep -E "^  gett_|Elapsed Cycles|SM Active Cycles|L2 Hit Rate|err " "$f"; done
