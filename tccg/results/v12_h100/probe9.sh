#!/bin/bash
# Session 9, call 11: Nsight Compute of #12 f16 -- gettpy's cluster tile against the cuBLAS GEMM torch.einsum
# runs (clocks not locked): tensor pipe, L2 and DRAM throughput, warp stalls, launch shape.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$PWD
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats"
timeout 200 ncu --clock-control none --kernel-name regex:gett_ --launch-skip 2 --launch-count 1 $S python3 -m tccg.profile_case 12 f16 > $OUT/ncu_12_gettpy.txt 2>&1
timeout 200 ncu --clock-control none --launch-skip 2 --launch-count 1 $S python3 tccg/results/v11_h100/call8/torch_case.py 12 f16 > $OUT/ncu_12_torch.txt 2>&1
grep -E "^  [a-z_A-Z].*\(|Duration|SM Frequency|Compute \(SM\) Throughput|DRAM Throughput|L2 Cache Throughput|Memory Throughput|Registers Per|Grid Size|Block Size|Cluster Size|Dynamic Shared|Waves Per SM|Tensor|Issue Slots|L2 Hit|Executed Ipc" $OUT/ncu_12_*.txt | head -80
