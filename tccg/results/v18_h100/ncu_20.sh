#!/bin/bash
# v18 (H100): Nsight Compute of #20 f32, gettpy's core kernel and cuTENSOR's (after the cuTENSOR parts):
# launch, occupancy, scheduler and warp-state sections (ncu's clock control, the L2 flushed). Files under $OUT/ncu20.
O=$OUT/ncu20; mkdir -p $O
cp .ct/p03 /tmp/ct/ 2>/dev/null; source .ct/setup.sh
for mode in gettpy cutensor; do
  sel='-k regex:gett --launch-skip 1 --launch-count 1'; [ $mode = cutensor ] && sel='--launch-skip 0 --launch-count 3'
  timeout 200 ncu --section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats \
    --section ComputeWorkloadAnalysis --section SpeedOfLight --section InstructionStats $sel --csv --page details python3 tccg/results/v18_h100/ncu_20.py $mode > $O/ncu_$mode.csv 2> $O/ncu_$mode.err
  echo "== $mode"; tail -3 $O/ncu_$mode.err
  grep -v "^==PROF==" $O/ncu_$mode.csv | python3 -c "
import csv, sys
rows = list(csv.reader(l for l in sys.stdin if l.startswith('\"')))
h = rows[0]
for r in rows[1:]:
    d = dict(zip(h, r)); print(d.get('Kernel Name', '')[:50], '|', d.get('Section Name'), '|', d.get('Metric Name'), d.get('Metric Unit'), d.get('Metric Value'))
" | tee $O/ncu_$mode.txt | cut -c1-160
done
