#!/bin/bash
# v22 call 5 (H100): serpentine k-walks (TileConfig.serpentine: a persistent CTA walks every other tile's k-tiles
# backwards, starting on the k-slabs its last tile ended on), in the heuristic's #12 tile for this call. GPU tests of the
# serpentine, chunked and persistent tiles; Nsight Compute of #12's core without and with (serp_probe.py 0) and of
# cuBLAS's; the two interleaved, 300 rounds; #2 and #12 end to end against torch, twice.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > "$out/gpu.txt"
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py tests/test_gpu_cluster.py 2>&1 | tail -3 | tee "$out/tests.txt"
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis"
timeout 100 ncu --clock-control none $S --kernel-name regex:gett_ python3 tccg/results/v22_h100/serp_probe.py 0 > "$out/ncu_serp.txt" 2>&1
timeout 60 ncu --clock-control none --launch-skip 2 --launch-count 1 $S python3 tccg/results/v11_h100/call8/torch_case.py 12 f16 > "$out/ncu_12_torch.txt" 2>&1
timeout 100 python3 tccg/results/v22_h100/serp_probe.py 300 2>&1 | tee "$out/serp.txt"
for i in 1 2; do timeout 60 python3 -m tccg --cases 2,12 --dtype f16 --order F --no-plots --out "$out/e2e$i" 2>&1 | tail -8 | grep slower | tee "$out/e2e$i.txt"; done
for f in "$out"/ncu_*.txt; do echo "== $f"; grep -E "^  gett_|^  [a-z_]*nvjet|Elapsed Cycles|SM Active Cycles|Compute \(SM\) Throughput|L2 Cache Throughput|DRAM Throughput|L2 Hit Rate" "$f"; done
