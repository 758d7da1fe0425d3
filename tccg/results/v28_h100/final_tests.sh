#!/bin/bash
# v28 final tests (H100), on the final code (run again after the review mend, final_tests2/) (the chunked epilogue along m an option): the persistent GPU tests (with
# the along-m cases), the cluster and wgmma tests.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 560 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py tests/test_gpu_cluster.py \
  tests/test_gpu_wgmma.py 2>&1 | tail -6 | tee "$out/tests.txt"
