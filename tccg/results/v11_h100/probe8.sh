#!/bin/bash
# Session 8 call 8: Nsight Compute of f16 #2 -- gettpy's kernel against the cuBLAS GEMM torch.einsum runs.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$PWD
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats"
ncu --clock-control none --kernel-name regex:gett_ --launch-skip 2 --launch-count 1 $S python3 -m tccg.profile_case 2 f16 > $OUT/ncu_2_gettpy.txt 2>&1
ncu --clock-control none --launch-skip 2 --launch-count 1 $S python3 tccg/results/v11_h100/call8/torch_case.py 2 f16 > $OUT/ncu_2_torch.txt 2>&1
grep -E "^  [a-z_A-Z].*\(|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Grid Size|Block Size|Dynamic Shared|Waves Per SM|Theoretical Occupancy|Stall|L2 Hit|Mem Busy|Max Bandwidth" $OUT/ncu_2_*.txt | head -80
