#!/bin/bash
# v23 call 9 (H100): do #12 f16's stores cost less when half the CTAs reach their tile boundaries half a tile later
# (epi_probe.py oddlate, with and without stores) than when all write at once; Nsight Compute forward then reversed, twice.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
V=plain,nostore,oddlate,oddlate+nostore
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
