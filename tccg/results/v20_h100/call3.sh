#!/bin/bash
# v20 call 3 (H100): the chunked epilogue without barriers (each computing warp stages its 16-row groups in a region
# of its own in the last stage, stmatrix, alpha == 1 unscaled). GPU tests of the persistent / cluster / wgmma tiles,
# Nsight Compute of #12 f16's heuristic kernel (elapsed cycles against call2/'s 568,774 for v19's kernel and
# 556,866 for cuBLAS), then #12 and #2 end to end against torch (python -m tccg, no cuTENSOR here), twice.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 240 python3 -m pytest -q tests/test_gpu_persistent.py tests/test_gpu_cluster.py tests/test_gpu_wgmma.py 2>&1 | tail -6 | tee "$out/tests.txt"
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section LaunchStats"
timeout 120 ncu --clock-control none --launch-skip 2 --launch-count 1 $S --kernel-name regex:gett_ python3 -m tccg.profile_case 12 f16 --tile h > "$out/ncu_12_ours.txt" 2>&1
timeout 120 ncu --clock-control none --launch-skip 2 --launch-count 1 $S python3 tccg/results/v11_h100/call8/torch_case.py 12 f16 > "$out/ncu_12_torch.txt" 2>&1
for i in 1 2; do timeout 100 python3 -m tccg --cases 2,12 --dtype f16 --order F --no-plots --out "$out/e2e$i" 2>&1 | tail -12 | tee "$out/e2e$i.txt"; done
for f in "$out"/ncu_12_*.txt; do echo "== $f"; grep -E "max rel err|Duration|SM Frequency|Elapsed Cycles|SM Active Cycles|Compute \(SM\) Throughput|Issue Slots Busy|highest-utilized" "$f"; done
