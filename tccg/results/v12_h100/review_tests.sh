#!/bin/bash
# Session 9, after the review mends (a shared stream-K share routine; the warp-specialised stream-K kernels'
# code changed, the heuristic kernels' SASS did not): the stream-K, cluster and persistent GPU tests.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_stream_k.py tests/test_gpu_cluster.py \
  tests/test_gpu_persistent.py 2>&1 | tail -3 | tee $OUT/gpu_tests_review.log
