#!/bin/bash
# Session 10, call 2: Nsight Compute of #12 f16 (clocks not locked): the 256 x 160 cluster tile and the
# heuristic's 128 x 256 cluster tile (core kernels, D column-major as the benchmark writes it) against
# the cuBLAS GEMM torch.einsum runs: elapsed against SM-active cycles (the tail), tensor pipe, stalls.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$PWD
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats"
N="timeout 150 ncu --clock-control none --launch-skip 2 --launch-count 1 $S"
$N --kernel-name regex:gett_ python3 -m tccg.profile_case 12 f16 --tile "256x160x64/4@64x160wt:c2" > $OUT/ncu_12_256x160.txt 2>&1
$N --kernel-name regex:gett_ python3 -m tccg.profile_case 12 f16 --tile h > $OUT/ncu_12_heur.txt 2>&1
$N python3 tccg/results/v11_h100/call8/torch_case.py 12 f16 > $OUT/ncu_12_torch.txt 2>&1
for f in $OUT/ncu_12_*.txt; do echo "== $f"; grep -E "max rel err|Duration|SM Frequency|Elapsed Cycles|SM Active Cycles|Compute \(SM\) Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|DRAM Throughput|Issue Slots Busy|highest-utilized|Grid Size|Registers Per|Warp Cycles Per Issued" $f; done
