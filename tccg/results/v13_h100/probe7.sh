#!/bin/bash
# Session 10, call 7: Nsight Compute source counters of #12 f16's heuristic kernel (256 x 160 cluster tile):
# per-SASS-instruction warp stall samples, exported as CSV for reading offline.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$PWD
timeout 150 ncu --clock-control none --launch-skip 2 --launch-count 1 --section SourceCounters --section WarpStateStats \
  --kernel-name regex:gett_ -o /tmp/heur python3 -m tccg.profile_case 12 f16 --tile h > $OUT/ncu_log.txt 2>&1
timeout 100 ncu --import /tmp/heur.ncu-rep --page source --csv --print-source sass > /tmp/heur_sass.csv 2>&1
gzip -c /tmp/heur_sass.csv > $OUT/heur_sass.csv.gz
ls -la /tmp/heur* $OUT; head -c 600 /tmp/heur_sass.csv
