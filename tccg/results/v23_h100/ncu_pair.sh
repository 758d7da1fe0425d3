#!/bin/bash
# v23 (H100): epi_probe.py's variants under Nsight Compute in two processes, each launching them forward then reversed
# (ncu1.txt, ncu2.txt under OUT), then each process's kernels' cycles and memory figures in launch order.
#   bash tccg/results/v23_h100/ncu_pair.sh OUT VARIANTS ["ncu sections"]   (the callN.sh scripts call it)
# (PROBE=path: another probe script taking the same arguments, v24's kloop_probe.py)
out=$1; V=$2; S=${3:-"--section SpeedOfLight"}
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
for i in 1 2; do
  timeout 150 ncu --clock-control none $S --kernel-name regex:"gett_|nvjet" python3 ${PROBE:-tccg/results/v23_h100/epi_probe.py} 0 $V \
    > "$out/ncu$i.txt" 2>&1
done
python3 - "$out" <<'PY'
import re, sys
for i in (1, 2):
    txt = open(f"{sys.argv[1]}/ncu{i}.txt").read()
    errs = re.findall(r"\[.*err.*\]", txt)
    print(f"ncu{i}: {errs[-1] if errs else txt[-600:]}")
    for key in ("Elapsed Cycles", "SM Active Cycles", "DRAM Throughput", "L2 Hit Rate", "Memory Throughput"):
        vals = re.findall(rf"^\s+{re.escape(key)}\s+\S+\s+([\d,.]+)", txt, re.M)
        if vals:
            print(f"  {key:18s}", vals)
PY
