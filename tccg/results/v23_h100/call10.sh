#!/bin/bash
# v23 call 10 (H100): cuBLAS's #12 f16 kernel (through torch.einsum, epi_probe.py's `torch`) under the same Nsight Compute
# sections as call 8's: warp stall samples per SASS instruction (CSV), warp states, memory tables; ours (`plain`) beside
# it for the memory tables.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 150 ncu --clock-control none --launch-count 1 --section SourceCounters --section WarpStateStats --section SpeedOfLight \
  --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section LaunchStats \
  --kernel-name regex:nvjet -o /tmp/torch python3 tccg/results/v23_h100/epi_probe.py 0 torch > "$out/ncu_torch.txt" 2>&1
timeout 100 ncu --import /tmp/torch.ncu-rep --page source --csv --print-source sass > /tmp/torch_sass.csv 2>&1
gzip -c /tmp/torch_sass.csv > "$out/torch_sass.csv.gz"
timeout 60 ncu --import /tmp/torch.ncu-rep --page details > "$out/details_torch.txt" 2>&1
timeout 150 ncu --clock-control none --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
  --section MemoryWorkloadAnalysis_Tables --kernel-name regex:gett_ python3 tccg/results/v23_h100/epi_probe.py 0 plain \
  > "$out/ncu_plain_mem.txt" 2>&1
grep -E "gett_|nvjet|Elapsed Cycles|SM Active|Warp Cycles Per Issued|Shared Memory Configuration Size|Dynamic Shared|Registers Per" \
  "$out/details_torch.txt" "$out/ncu_plain_mem.txt" | head -30
ls -la "$out"
