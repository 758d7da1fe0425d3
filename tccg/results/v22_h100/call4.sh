#!/bin/bash
# v22 call 4 (H100): the headline's #12 (narrow columns first) was no faster end to end, and call 1's Nsight Compute had
# it at 601,995 cycles against v20's 566,059 for the untrimmed kernel: the narrow columns first put all but 3 of the 33
# tile starts of #12's n-major B off 128-byte lines (untrimmed: 16 of 33). Now the narrow columns come last (15 of 33
# off). Trimmed-column GPU tests; Nsight Compute of each variant's check launch (variants_probe.py 0: v21, untrimmed,
# trimmed = narrow last, narrow first, no turn, turn only, n = 160 wgmmas) and of cuBLAS's; the variants interleaved,
# 300 rounds; #2 and #12 end to end against torch, twice.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > "$out/gpu.txt"
timeout 100 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py -k "trimmed or chunked" 2>&1 | tail -3 | tee "$out/tests.txt"
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis"
timeout 200 ncu --clock-control none $S --kernel-name regex:gett_ python3 tccg/results/v22_h100/variants_probe.py 0 > "$out/ncu_variants.txt" 2>&1
timeout 60 ncu --clock-control none --launch-skip 2 --launch-count 1 $S python3 tccg/results/v11_h100/call8/torch_case.py 12 f16 > "$out/ncu_12_torch.txt" 2>&1
timeout 120 python3 tccg/results/v22_h100/variants_probe.py 300 2>&1 | tee "$out/variants.txt"
for i in 1 2; do timeout 60 python3 -m tccg --cases 2,12 --dtype f16 --order F --no-plots --out "$out/e2e$i" 2>&1 | tail -8 | grep slower | tee "$out/e2e$i.txt"; done
for f in "$out"/ncu_*.txt; do echo "== $f"; grep -E "^  gett_|^  [a-z_]*nvjet|Elapsed Cycles|SM Active Cycles|Compute \(SM\) Throughput|L2 Cache Throughput|Memory Throughput" "$f"; done
