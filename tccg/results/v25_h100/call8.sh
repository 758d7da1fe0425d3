#!/bin/bash
# v25 call 8 (H100), on commit 14ee108 (its 64-byte swizzle since taken out): mn-major wgmma stages an odd multiple
# of 32 wide under the 64-byte swizzle in atoms of 32 columns (#12's B: 160 columns a stage, not 192). The wgmma, persistent, cluster and narrow warp-specialised GPU tests; #12 f16
# against `sw128` (the 128-byte swizzle as before) and torch.einsum, timed in turn twice.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 400 python3 -m pytest -q -x -p no:cacheprovider tests/test_gpu_wgmma.py tests/test_gpu_persistent.py \
  tests/test_gpu_cluster.py tests/test_gpu_narrow_ws.py 2>&1 | tail -6 | tee "$out/tests.txt"
V=plain,sw128,torch
timeout 80 python3 tccg/results/v25_h100/pp_probe.py 300 $V 2>&1 | tee "$out/timed.txt"
timeout 80 python3 tccg/results/v25_h100/pp_probe.py 300 $V 2>&1 | tee "$out/timed2.txt"
