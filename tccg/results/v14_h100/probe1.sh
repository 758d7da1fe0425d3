#!/bin/bash
# Session 11, call 1: #2 f16 on TMA tiles over its big input's split n map (n = (a, c), boxes of 104 rows of
# a within one c): persistent and not, 4-7 stages, 104 and 24 wide; torch.einsum timed in the same call;
# then the TMA / cluster / persistent / wgmma GPU tests (the box copies were rewritten for ranks 2-4).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
T="128x104x64/4@64x104wtp,128x104x64/6@64x104wtp,128x104x64/7@64x104wtp,128x104x64/6@64x104wt,128x104x64/4@64x104wt,128x24x64/8@64x24wtp"
timeout 120 python3 -m tccg.tile_probe --cases 2 --dtype f16 --rounds 3 --tiles "$T" 2>&1 | tee $OUT/probe.txt
timeout 60 python3 - <<'PY' 2>&1 | tee $OUT/torch.txt
import torch, statistics
a = torch.randn(312, 296, 312, device="cuda", dtype=torch.float16).permute(2, 1, 0)  # A[d,c,a] column-major
b = torch.randn(312, 24, device="cuda", dtype=torch.float16).t()                      # B[b,d] column-major
for r in range(3):
    ts = []
    for _ in range(20):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        for _ in range(5):
            torch.einsum("dca,bd->abc", a, b)
        e1.record(); e1.synchronize(); ts.append(e0.elapsed_time(e1) / 5)
    print(f"torch #2 f16 round {r}: {statistics.median(ts):.4f} ms")
PY
timeout 400 python3 -m pytest -q -x tests/test_gpu_cluster.py tests/test_gpu_persistent.py tests/test_gpu_wgmma.py 2>&1 | tail -4 | tee $OUT/tests.txt
echo "== summary"; grep " ms " $OUT/probe.txt; cat $OUT/torch.txt; tail -1 $OUT/tests.txt
