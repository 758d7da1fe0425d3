#!/bin/bash
# v25 call 9 (H100): #12 f16's chunked epilogue storing D with st.global.cs (evict-first) or .cg instead of plain
# stores (pp_probe.py stcs, stcg), against the heuristic and torch.einsum, timed in turn twice.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
V=plain,stcs,stcg,torch
timeout 100 python3 tccg/results/v25_h100/pp_probe.py 300 $V 2>&1 | tee "$out/timed.txt"
timeout 100 python3 tccg/results/v25_h100/pp_probe.py 300 $V 2>&1 | tee "$out/timed2.txt"
