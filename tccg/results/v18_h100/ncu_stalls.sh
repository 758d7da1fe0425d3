#!/bin/bash
# v18 (H100): Nsight Compute warp-stall reasons of #20 f32's heuristic core (128 x 64 x 16 / 4, 8 x 8 threads, 3 CTAs
# per SM) and of the 256 x 128 x 8 / 4 tile of 16 x 8 threads (one CTA per SM, cuTENSOR's shape, 7.7% slower in
# call5/): the first launch of each in tccg.tile_probe (its check against float64). Files under $OUT/ncu_stalls.
O=$OUT/ncu_stalls; mkdir -p $O
R=barrier,short_scoreboard,long_scoreboard,mio_throttle,math_pipe_throttle,wait,not_selected,selected,dispatch_stall,no_instruction,lg_throttle,branch_resolving,membar,sleeping,drain,misc,tex_throttle,imc_miss
M=gpu__time_duration.sum,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__warps_active.avg.per_cycle_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed.sum
for r in ${R//,/ }; do M=$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio; done
timeout 300 ncu --metrics $M -k regex:gett --launch-count 2 --csv python3 -m tccg.tile_probe --cases 20 --dtype f32 \
  --rounds 1 --tiles "256x128x8/4@16x8s:k132" > $O/ncu.csv 2> $O/ncu.err
tail -3 $O/ncu.err
grep -v "^==PROF==" $O/ncu.csv | python3 -c "
import csv, sys
rows = list(csv.reader(l for l in sys.stdin if l.startswith('\"')))
h = rows[0]
for r in rows[1:]:
    d = dict(zip(h, r)); print(d.get('ID'), d.get('Grid Size'), d.get('Block Size'), d.get('Metric Name').replace('smsp__average_warps_issue_stalled_', 'stall ').replace('_per_issue_active.ratio', ''), d.get('Metric Value'))
" | tee $O/ncu.txt
