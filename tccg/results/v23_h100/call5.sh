#!/bin/bash
# v23 call 5 (H100): which part of #12 f16's D stores costs (epi_probe.py): the shared reads without the global stores
# (noglobal), half the stores (halfd), against plain, no stores and torch.einsum; Nsight Compute forward then
# reversed, twice.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
V=plain,nostore,noglobal,halfd,torch
S="--section SpeedOfLight"
for i in 1 2; do timeout 150 ncu --clock-control none $S --kernel-name regex:"gett_|nvjet" python3 tccg/results/v23_h100/epi_probe.py 0 $V > "$out/ncu$i.txt" 2>&1; done
python3 - "$out" <<'PY'
import re, sys
for i in (1, 2):
    txt = open(f"{sys.argv[1]}/ncu{i}.txt").read()
    errs = re.findall(r"\[.*err.*\]", txt)
    print(f"ncu{i}: {errs[-1] if errs else txt[-600:]}")
    for key in ("Elapsed Cycles", "SM Active Cycles", "DRAM Throughput", "L2 Hit Rate", "Memory Throughput",
                "L1/TEX Hit Rate", "Mem Busy", "Max Bandwidth", "L2 Compression"):
        vals = re.findall(rf"^\s+{re.escape(key)}\s+\S+\s+([\d,.]+)", txt, re.M)
        print(f"  {key:18s}", vals)
PY
