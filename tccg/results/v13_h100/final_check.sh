#!/bin/bash
# Session 10, the final code (after the headline: the swizzle experiment reverted, build's register check for
# setmaxnreg tiles, comments): the cluster, persistent and TMA GPU tests, and #12 / #20 end to end with torch.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_cluster.py tests/test_gpu_persistent.py tests/test_gpu_wgmma.py -k "cluster or tma or persistent" 2>&1 | tail -2 | tee $OUT/tests.txt
timeout 100 python3 -m tccg --cases 12,20 --dtype f16,f16f32 --no-plots --out $OUT/tccg 2>&1 | grep -v "tccg gpu" | grep -E "^ 1[2]|^ 20|slower|verified" | tee $OUT/tccg.txt
