#!/bin/bash
# v23 call 2 (H100): the chunked epilogue's stores through the TMA unit (TileConfig.tma_store): its GPU tests, then
# #12 f16's heuristic kernel with and without it against torch.einsum (cuBLAS) and against no stores at all
# (epi_probe.py): Nsight Compute cycles forward then reversed, twice; then timed in turn.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py -k "tma_store or chunked" 2>&1 | tail -15 | tee "$out/tests.txt"
bash tccg/results/v23_h100/ncu_pair.sh "$out" plain,nostore,tmast,torch
timeout 100 python3 tccg/results/v23_h100/epi_probe.py 300 plain,tmast,torch 2>&1 | tee "$out/timed.txt"
