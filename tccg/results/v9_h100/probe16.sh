#!/bin/bash
# Session 6, last device call (for the next session): Nsight Compute of #12's TMA warp-specialised kernel.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 240 ncu --clock-control none --kernel-name regex:gett_ --launch-skip 1 --launch-count 1 \
  --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy \
  --section MemoryWorkloadAnalysis python3 -m tccg.profile_case 12 f16 > $OUT/ncu_12_tma.txt 2>&1
grep -E "gett_|Duration|Throughput|Pipe|Issue|Warp Cycles|Occupancy|Registers|Stall|Est" $OUT/ncu_12_tma.txt | head -40
