#!/bin/bash
# Session 10, call 6: Nsight Compute of #12 f16 (clocks not locked): the heuristic's 256 x 160 cluster tile,
# the same tile persistent (direct stores), and the cuBLAS GEMM torch.einsum runs: elapsed against
# SM-active cycles, tensor-pipe activity, and the warps' stall reasons per issued instruction.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$PWD
M="gpc__cycles_elapsed.max,sm__cycles_active.avg,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed.sum,smsp__cycles_active.avg,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"
N="timeout 120 ncu --clock-control none --launch-skip 2 --launch-count 1 --metrics $M"
$N --kernel-name regex:gett_ python3 -m tccg.profile_case 12 f16 --tile h > $OUT/ncu_12_heur.txt 2>&1
$N --kernel-name regex:gett_ python3 -m tccg.profile_case 12 f16 --tile "256x160x64/4@64x160wtp:c2" > $OUT/ncu_12_persist.txt 2>&1
$N python3 tccg/results/v11_h100/call8/torch_case.py 12 f16 > $OUT/ncu_12_torch.txt 2>&1
for f in $OUT/ncu_12_*.txt; do echo "== $f"; grep -E "elapsed|cycles_active|tensor|inst_executed" $f; grep -E "stalled" $f | awk '$NF+0 > 0.2'; done
