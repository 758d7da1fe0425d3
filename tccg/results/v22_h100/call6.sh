#!/bin/bash
# v22 call 6 (H100): call 5's Nsight Compute had #12's plain tile first (589,675 cycles; call 4: 570,000) and the
# serpentine one second (561,529): now plain, serpentine, serpentine, plain in one process (serp_probe.py 0), twice,
# with cuBLAS's between; then #2 and #12 end to end against torch, twice (the heuristic serpentine).
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
S="--section SpeedOfLight --section MemoryWorkloadAnalysis"
for i in 1 2; do
  timeout 100 ncu --clock-control none $S --kernel-name regex:gett_ python3 tccg/results/v22_h100/serp_probe.py 0 > "$out/ncu_serp$i.txt" 2>&1
  timeout 60 ncu --clock-control none --launch-skip 2 --launch-count 1 $S python3 tccg/results/v11_h100/call8/torch_case.py 12 f16 > "$out/ncu_12_torch$i.txt" 2>&1
done
for i in 1 2; do timeout 60 python3 -m tccg --cases 2,12 --dtype f16 --order F --no-plots --out "$out/e2e$i" 2>&1 | tail -8 | grep slower | tee "$out/e2e$i.txt"; done
for f in "$out"/ncu_*.txt; do echo "== $f"; grep -E "^  gett_|^  [a-z_]*nvjet|Elapsed Cycles|SM Active Cycles|L2 Hit Rate" "$f"; done
