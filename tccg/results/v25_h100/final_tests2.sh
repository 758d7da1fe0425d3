#!/bin/bash
# v25 final tests 2 (H100), after persistent warp-specialised tiles' raster groups were turned column by column (gett.cuh
# tile_coords): the persistent and cluster GPU tests (with a 4-group turned raster and the ping-pong cases).
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 400 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py tests/test_gpu_cluster.py 2>&1 \
  | tail -6 | tee "$out/tests.txt"
