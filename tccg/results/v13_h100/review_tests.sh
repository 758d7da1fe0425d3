#!/bin/bash
# Session 10, after the review mends (one wg_stage for both wgmma paths; REG_SPLIT / DIRECT_D rendered from
# spec.py): the wgmma, cluster, persistent and stream-K GPU tests, and #12 / #20 end to end with torch.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 400 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_wgmma.py tests/test_gpu_cluster.py tests/test_gpu_persistent.py tests/test_gpu_stream_k.py 2>&1 | tail -2 | tee $OUT/tests.txt
timeout 100 python3 -m tccg --cases 12,20 --dtype f16 --no-plots --out $OUT/tccg 2>&1 | grep -v "tccg gpu" | grep -E "^ 1[2]|^ 20|slower|verified" | tee $OUT/tccg.txt
