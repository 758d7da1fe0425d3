#!/bin/bash
# v23 call 8 (H100): where #12 f16's heuristic kernel waits with and without D's stores: Nsight Compute's warp stall
# samples per SASS instruction (SourceCounters) of `plain` and `nostore` (epi_probe.py), one launch each, exported as
# CSV, and the warp state summary of each.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
for v in plain nostore; do
  timeout 150 ncu --clock-control none --launch-count 1 --section SourceCounters --section WarpStateStats --section SpeedOfLight \
    --kernel-name regex:gett_ -o /tmp/$v python3 tccg/results/v23_h100/epi_probe.py 0 $v > "$out/ncu_$v.txt" 2>&1
  timeout 100 ncu --import /tmp/$v.ncu-rep --page source --csv --print-source sass > /tmp/${v}_sass.csv 2>&1
  gzip -c /tmp/${v}_sass.csv > "$out/${v}_sass.csv.gz"
  timeout 60 ncu --import /tmp/$v.ncu-rep --page details > "$out/details_$v.txt" 2>&1
  grep -E "Elapsed Cycles|Warp Cycles Per Issued|Stall|No Eligible" "$out/details_$v.txt" | head -20
done
ls -la "$out"
