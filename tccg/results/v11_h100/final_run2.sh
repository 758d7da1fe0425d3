#!/bin/bash
# Session 8, after the K = 48 narrow-tile rule: its GPU tests (the GEMM shapes with a narrow side and
# K = 48, TCCG #7 in every dtype pair and order), then the headline again (final code) as final_run.sh.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 120 python3 -m pytest -q -p no:cacheprovider tests/test_gpu.py -m gpu -k "gemm_shapes or 07_" 2>&1 | tail -2 | tee $OUT/gpu_tests_k48.txt
bash tccg/results/v11_h100/final_run.sh
