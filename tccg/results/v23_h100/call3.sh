#!/bin/bash
# v23 call 3 (H100): the TMA stores with the waits for the TMA unit's reads deferred into the next tile's first k-tile
# (gett.cuh's TMA_HOLD 1: the last round's; 2: both rounds staged in the last two stages at once), against TMA_HOLD 0,
# no stores and torch.einsum (epi_probe.py): Nsight Compute forward then reversed, twice; then timed in turn.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py -k "tma_store" 2>&1 | tail -15 | tee "$out/tests.txt"
V=plain,nostore,tmast,tmast1,tmast2,torch
S="--section SpeedOfLight"
for i in 1 2; do timeout 100 ncu --clock-control none $S --kernel-name regex:"gett_|nvjet" python3 tccg/results/v23_h100/epi_probe.py 0 $V > "$out/ncu$i.txt" 2>&1; done
timeout 100 python3 tccg/results/v23_h100/epi_probe.py 300 plain,tmast1,tmast2,torch 2>&1 | tee "$out/timed.txt"
python3 - "$out" <<'PY'
import re, sys
for i in (1, 2):
    txt = open(f"{sys.argv[1]}/ncu{i}.txt").read()
    cyc = [int(x.replace(",", "")) for x in re.findall(r"Elapsed Cycles\s+cycle\s+([\d,]+)", txt)]
    act = [float(x.replace(",", "")) for x in re.findall(r"SM Active Cycles\s+cycle\s+([\d,.]+)", txt)]
    errs = re.findall(r"\[.*err.*\]", txt)
    print(f"ncu{i}: {len(cyc)} kernels; {errs[-1] if errs else txt[-600:]}")
    print("  elapsed", cyc)
    print("  active ", [int(a) for a in act])
PY
