#!/bin/bash
# v29 review (H100): after the review mend (one grouped rasterisation for plain tiles and share_a's pairs; share_a's
# kernel changed, the others kept their SASS): the cluster GPU tests (share_a's among them) and the half-atom tests
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_cluster.py tests/test_gpu_half_atom.py 2>&1 \
  | tail -6 | tee "$out/tests.txt"
