#!/bin/bash
# Session 6: heuristic vs tuned over the 48 (f16), and the GPU tests of the last f32 tile change.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 120 python3 -m pytest tests/test_gpu.py -m gpu -q -k "f32 and (tccg or gemm_shapes or random_odd or batch)" 2>&1 | tail -3 | tee $OUT/gpu_tests_f32.log
timeout 420 python3 -m tccg --tune --cases 1-48 --dtype f16 --order F --no-peers --no-plots --tune-samples 16 --tune-top 4 --out $OUT/tune 2>&1 | grep -v "tccg gpu\|tune:" > $OUT/tune_all.txt
grep -i "autotuning\|geomean" $OUT/tune_all.txt
