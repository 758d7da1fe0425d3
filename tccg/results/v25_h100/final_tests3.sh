#!/bin/bash
# v25 final tests 3 (H100), after the chunked epilogue's D stores became st.global.cg (gett.cuh store_cg): the
# persistent and cluster GPU tests.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 400 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py tests/test_gpu_cluster.py 2>&1 \
  | tail -6 | tee "$out/tests.txt"
