#!/bin/bash
# v18, final code: the gpu-marked tests of test_gpu.py and test_einsum_cases.py (every TCCG case through the
# heuristic in every dtype pair, f32 #2 on its one-wave tile among them), then this session's test file.
export PYTHONUNBUFFERED=1
mkdir -p $OUT/tests
timeout 470 python3 -m pytest tests/test_gpu.py tests/test_einsum_cases.py tests/test_gpu_narrow_wave.py -m gpu -q \
  -p no:cacheprovider 2>&1 | tail -n 6 | tee $OUT/tests/gpu_tests_part1.log
