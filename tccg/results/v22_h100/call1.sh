#!/bin/bash
# v22 call 1 (H100): trimmed tile columns (TileConfig.trim: #12's 33 columns of 160, the last 16 wide, as 9 of 144 and
# 24 of 160, turned round per raster group) and the last k-tile's wgmmas past K skipped (K = 5136: one k-step of 16).
# GPU tests of the persistent / chunked / trimmed, cluster and wgmma tiles; #12 f16's core as v21 built it, with the
# k-tail skipped, and trimmed too (ktail_probe.py, round-robin, 7 rounds of 20 batches each; gett_v21.cuh written before
# the call; ktail_probe.py then became variants_probe.py, whose first three variants are its three); Nsight Compute cycles of ours and cuBLAS's (v20 call3:
# 566,059 against 551,964); #2 and #12 end to end against torch, twice.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > "$out/gpu.txt"
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py tests/test_gpu_cluster.py tests/test_gpu_wgmma.py 2>&1 | tail -6 | tee "$out/tests.txt"
timeout 150 python3 tccg/results/v22_h100/ktail_probe.py 7 2>&1 | tee "$out/probe_12_trim.txt"
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section LaunchStats"
timeout 90 ncu --clock-control none --launch-skip 2 --launch-count 1 $S --kernel-name regex:gett_ python3 -m tccg.profile_case 12 f16 --tile h > "$out/ncu_12_ours.txt" 2>&1
timeout 90 ncu --clock-control none --launch-skip 2 --launch-count 1 $S python3 tccg/results/v11_h100/call8/torch_case.py 12 f16 > "$out/ncu_12_torch.txt" 2>&1
for i in 1 2; do timeout 60 python3 -m tccg --cases 2,12 --dtype f16 --order F --no-plots --out "$out/e2e$i" 2>&1 | tail -8 | tee "$out/e2e$i.txt"; done
for f in "$out"/ncu_12_*.txt; do echo "== $f"; grep -E "Duration|SM Frequency|Elapsed Cycles|SM Active Cycles|Compute \(SM\) Throughput" "$f"; done
tail -4 "$out/probe_12_trim.txt"
