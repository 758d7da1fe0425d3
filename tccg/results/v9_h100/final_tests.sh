#!/bin/bash
# Session 6: GPU tests of this session's code, the GPU fuzz, and f16 none vs leaky_relu (peers off).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 150 python3 -m pytest tests/test_permute.py tests/test_schedule.py tests/test_gpu_persistent.py -m gpu -q 2>&1 | tail -3 | tee $OUT/gpu_tests_1.log
timeout 150 python3 -m pytest tests/test_gpu.py -m gpu -q -k "column or gemm_shapes or batch or random_odd or d_runs or interleaved or strided" 2>&1 | tail -3 | tee $OUT/gpu_tests_2.log
GETTPY_GPU_FUZZ_N=150 timeout 100 python3 -m pytest tests/test_gpu_fuzz.py -m gpu -q -s 2>&1 | tail -4 | tee $OUT/gpu_fuzz.log
timeout 170 python3 -m tccg --dtype f16 --ops none,leaky_relu --order F --no-peers --no-plots --out $OUT/csv 2>&1 | grep -v "tccg gpu" > $OUT/ops_log.txt
tail -14 $OUT/ops_log.txt
