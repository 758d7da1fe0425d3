#!/bin/bash
# v17 call 4 (H100): Nsight Compute of #2 f16: gettpy into D, gettpy into torch's result layout, torch.einsum
# (clocks not locked, the L2 flushed before the profiled launch as ncu does by default). Files under $OUT/call4.
set -u
O=$OUT/call4; mkdir -p $O
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__cycles_active.avg.pct_of_peak_sustained_elapsed,launch__grid_size,launch__block_size,sm__cycles_elapsed.avg.per_second
for mode in d like torch; do
  k='regex:gett'; [ $mode = torch ] && k='regex:nvjet|hgemm|f16'
  timeout 120 ncu --metrics $M -k "$k" --launch-skip 2 --launch-count 1 --csv python3 tccg/results/v17_h100/ncu_2.py $mode \
    > $O/ncu_$mode.csv 2> $O/ncu_$mode.err
  echo "== $mode"; grep -v "^==PROF==" $O/ncu_$mode.csv | python3 -c "
import csv, sys
rows = list(csv.reader(l for l in sys.stdin if l.startswith('\"')))
h = rows[0]
for r in rows[1:]:
    d = dict(zip(h, r)); print(d.get('Kernel Name', '')[:60], d.get('Metric Name'), d.get('Metric Unit'), d.get('Metric Value'))
"
done
