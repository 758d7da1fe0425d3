#!/bin/bash
# v21 call 10 (H100): the heuristic's TMA tile over straddled slabs (boxes of 8 rows) through gettpy.einsum, and
# the TMA / split-map GPU tests again, on the final code.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1
timeout 400 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_wgmma.py tests/test_gpu_cluster.py 2>&1 | tail -3 | tee "$out/tests.txt"
# (then, after the test's fix: python3 -m pytest -q tests/test_gpu_wgmma.py -k 'straddled or tma_split' -> call10/tests_straddled.txt)
