#!/bin/bash
# v23 call 1 (H100): the GPU tests v22 left un-run on its final code (the chunked epilogue's multi-chunk tiles,
# test_gpu_tune), then what #12 f16's epilogue, its barrier and the pipeline depth cost (epi_probe.py): Nsight
# Compute cycles of each variant and of torch.einsum (cuBLAS), forward then reversed, twice; then timed in turn.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py tests/test_gpu_tune.py 2>&1 | tail -3 | tee "$out/tests.txt"
V=plain,nostore,noepi,nobar,owna,stag1500,stag3000,s3,torch
bash tccg/results/v23_h100/ncu_pair.sh "$out" $V
timeout 120 python3 tccg/results/v23_h100/epi_probe.py 200 $V 2>&1 | tee "$out/timed.txt"
