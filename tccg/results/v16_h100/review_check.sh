#!/bin/bash
# Session 13, after the review mends (the shared CUDA-graph launcher in gettpy.graphs): the tuner's GPU test
# and a short benchmark run through tccg.timing on #1, #2, #35 (f16, none vs leaky_relu, peers off).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 60 python3 -m pytest tests/test_gpu_tune.py -m gpu -q -p no:cacheprovider 2>&1 | tail -n 2 | tee $OUT/gpu_tests.log
timeout 60 python3 -m tccg --dtype f16 --ops none,leaky_relu --cases 1,2,35 --order F --no-peers --no-plots --out $OUT/ops 2>&1 | grep -v "tccg gpu" > $OUT/ops_log.txt
grep -E "^ +(1|2|35) |verified" $OUT/ops_log.txt
