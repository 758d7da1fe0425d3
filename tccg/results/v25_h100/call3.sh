#!/bin/bash
# v25 call 3 (H100): is #12 f16's k-loop bound by shared memory's bandwidth? The heuristic kernel against `noatom2`
# (B's third column atom, 32 of its 64 columns past the tile, not loaded: 8 KB a stage less written into shared
# memory; the tile's columns 128-159 come out wrong) and torch.einsum: timed in turn twice and under Nsight Compute
# twice (cycles, clocks not locked).
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
V=plain,noatom2,torch
timeout 100 python3 tccg/results/v25_h100/pp_probe.py 300 $V 2>&1 | tee "$out/timed.txt"
PROBE=tccg/results/v25_h100/pp_probe.py bash tccg/results/v23_h100/ncu_pair.sh "$out" $V \
  "--section SpeedOfLight --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed_pipe_uniform.sum,l1tex__throughput.avg.pct_of_peak_sustained_active" \
  2>&1 | tee "$out/ncu.txt"
grep -E "^\s+(l1tex__|smsp__)" "$out/ncu1.txt" | head -20
timeout 100 python3 tccg/results/v25_h100/pp_probe.py 300 $V 2>&1 | tee "$out/timed2.txt"
