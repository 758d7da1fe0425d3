#!/bin/bash
# Session 12, on the code with the narrow-copies rule: the GPU tests that run the heuristic on every TCCG
# contraction (reduced extents, 4 dtype pairs, 2 orders) and a few more of test_gpu.py, then those of the two
# options and of persistent tiles.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 330 python3 -m pytest tests/test_gpu.py -k "tccg or odd or ops or alpha" -m gpu -q -p no:cacheprovider 2>&1 | tail -4 | tee $OUT/gpu_tests.log
timeout 200 python3 -m pytest tests/test_gpu_resident.py tests/test_gpu_prefetch.py tests/test_gpu_persistent.py -m gpu -q -p no:cacheprovider 2>&1 | tail -4 | tee -a $OUT/gpu_tests.log
