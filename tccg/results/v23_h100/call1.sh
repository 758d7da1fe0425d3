#!/bin/bash
# v23 call 1 (H100): the GPU tests v22 left un-run on its final code (the chunked epilogue's multi-chunk tiles,
# test_gpu_tune), then what #12 f16's epilogue, its barrier and the pipeline depth cost (epi_probe.py): Nsight
# Compute cycles of each variant and of torch.einsum (cuBLAS), forward then reversed, twice; then timed in turn.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py tests/test_gpu_tune.py 2>&1 | tail -3 | tee "$out/tests.txt"
V=plain,nostore,noepi,nobar,owna,stag1500,stag3000,s3,torch
S="--section SpeedOfLight"
for i in 1 2; do timeout 150 ncu --clock-control none $S --kernel-name regex:"gett_|nvjet" python3 tccg/results/v23_h100/epi_probe.py 0 $V > "$out/ncu$i.txt" 2>&1; done
timeout 120 python3 tccg/results/v23_h100/epi_probe.py 200 $V 2>&1 | tee "$out/timed.txt"
python3 - "$out" <<'PY'
import re, sys, statistics
for i in (1, 2):
    txt = open(f"{sys.argv[1]}/ncu{i}.txt").read()
    names = re.findall(r"^\s+(\S+) \(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)", txt, re.M)
    cyc = [int(x.replace(",", "")) for x in re.findall(r"Elapsed Cycles\s+cycle\s+([\d,]+)", txt)]
    act = [float(x.replace(",", "")) for x in re.findall(r"SM Active Cycles\s+cycle\s+([\d,.]+)", txt)]
    errs = re.findall(r"\[.*err.*\]", txt)
    print(f"ncu{i}: {len(cyc)} kernels; {errs[-1] if errs else ''}")
    print("  elapsed", cyc)
    print("  active ", [int(a) for a in act])
PY
