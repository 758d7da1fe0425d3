#!/bin/bash
# (The change it measures, commit "wgmma descriptors built once per stage", was reverted after this call: slower.)
# v20 call 6 (H100): wgmma descriptors built once per stage (uniform registers). GPU tests of every wgmma path,
# then Nsight Compute cycles of #12 f16 and #20 f16 (heuristic core kernels; #12's v20 figure before this change:
# 566,059 cycles, call3/) and cuBLAS's #12, then #2, #12, #20 end to end against torch (no cuTENSOR here).
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_wgmma.py tests/test_gpu_persistent.py tests/test_gpu_cluster.py tests/test_gpu_stream_k.py tests/test_gpu_narrow_ws.py tests/test_gpu_frag_ops.py 2>&1 | tail -4 | tee "$out/tests.txt"
S="--section SpeedOfLight --section WarpStateStats --section LaunchStats"
for c in 12 20; do
  timeout 100 ncu --clock-control none --launch-skip 2 --launch-count 1 $S --kernel-name regex:gett_ python3 -m tccg.profile_case $c f16 --tile h > "$out/ncu_${c}_ours.txt" 2>&1
done
timeout 100 ncu --clock-control none --launch-skip 2 --launch-count 1 $S python3 tccg/results/v11_h100/call8/torch_case.py 12 f16 > "$out/ncu_12_torch.txt" 2>&1
for f in "$out"/ncu_*.txt; do echo "== $f"; grep -E "Duration|SM Frequency|Elapsed Cycles|SM Active Cycles|Compute \(SM\) Throughput|Issue Slots Busy" "$f"; done
timeout 100 python3 -m tccg --cases 2,12,20 --dtype f16 --order F --no-plots --out "$out/e2e" 2>&1 | grep -E "^ +(2|12|20) |slower" | tee "$out/e2e.txt"
