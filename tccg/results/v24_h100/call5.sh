#!/bin/bash
# v24 call 5 (H100): the narrow wgmma of the last tile column (KernelSpec.wg_tail_n) in place: its GPU tests and
# those of the wgmma / persistent / cluster / narrow / stream-K paths; #12 f16 against the full-width tail (kloop_probe
# notail) and torch.einsum under Nsight Compute twice and timed in turn; the per-CTA timeline with SM clocks; then
# #2 / #12 f16 through `python -m tccg --interleave` (torch the only peer).
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 360 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py tests/test_gpu_wgmma.py tests/test_gpu_cluster.py \
  tests/test_gpu_narrow_ws.py tests/test_gpu_stream_k.py 2>&1 | tail -4 | tee "$out/tests.txt"
PROBE=tccg/results/v24_h100/kloop_probe.py bash tccg/results/v23_h100/ncu_pair.sh "$out" plain,notail,torch
timeout 100 python3 tccg/results/v24_h100/kloop_probe.py 300 plain,notail,torch 2>&1 | tee "$out/timed.txt"
timeout 60 python3 tccg/results/v24_h100/kloop_probe.py stamps "$out" 12 2>&1 | tee "$out/stamps.txt"
timeout 150 python3 -m tccg --cases 2,12 --dtype f16 --order F --no-plots --interleave --out "$out" 2>&1 | grep -v "tccg gpu" > "$out/log.txt"
grep -E "verified|slower|interleaved|^ *(2|12) " "$out/log.txt"
