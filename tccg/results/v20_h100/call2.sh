#!/bin/bash
# v20 call 2 (H100): Nsight Compute of #12 f16, v19's heuristic core kernel (persistent 256 x 160 TMA tile in
# clusters of two, chunked epilogue) against the cuBLAS GEMM torch.einsum runs (clocks not locked), then the
# per-instruction warp stall samples of ours (SourceCounters, exported as CSV), then SM clock and power while each
# runs back to back (v12's clock_probe).
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy"
N="timeout 120 ncu --clock-control none --launch-skip 2 --launch-count 1 $S"
$N --kernel-name regex:gett_ python3 -m tccg.profile_case 12 f16 --tile h > "$out/ncu_12_ours.txt" 2>&1
$N python3 tccg/results/v11_h100/call8/torch_case.py 12 f16 > "$out/ncu_12_torch.txt" 2>&1
timeout 150 ncu --clock-control none --launch-skip 2 --launch-count 1 --section SourceCounters --section WarpStateStats \
  --kernel-name regex:gett_ -o /tmp/ours python3 -m tccg.profile_case 12 f16 --tile h > "$out/ncu_src_log.txt" 2>&1
timeout 100 ncu --import /tmp/ours.ncu-rep --page source --csv --print-source sass > /tmp/ours_sass.csv 2>&1
gzip -c /tmp/ours_sass.csv > "$out/ours_sass.csv.gz"
timeout 60 python3 tccg/results/v12_h100/clock_probe.py 12 > "$out/clock_12.txt" 2>&1
for f in "$out"/ncu_12_*.txt; do echo "== $f"; grep -E "max rel err|Duration|SM Frequency|Elapsed Cycles|SM Active Cycles|Compute \(SM\) Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|DRAM Throughput|Issue Slots Busy|highest-utilized|Grid Size|Registers Per|Warp Cycles Per Issued|No Eligible|Active Warps Per" "$f"; done
tail -8 "$out/clock_12.txt"
