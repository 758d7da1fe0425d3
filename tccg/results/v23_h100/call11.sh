#!/bin/bash
# v23 call 11 (H100): #12 f16 with each warp's second 64-row round held in registers and stored during the next tile's
# k-loop (epi_probe.py trickle, gett.cuh's TRICKLE), against plain, no stores and torch.einsum; Nsight Compute twice.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
V=plain,nostore,trickle,torch
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
timeout 100 python3 tccg/results/v23_h100/epi_probe.py 300 plain,trickle,torch 2>&1 | tee "$out/timed.txt"
