#!/bin/bash
# Session 12, after the headline: the resident A panel takes an op on A (applied to the panel once), so the
# leaky_relu runs of #2, #4-#6, #8 keep the panel too. Its GPU tests, then the f16 none vs leaky_relu run.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 120 python3 -m pytest tests/test_gpu_resident.py -m gpu -q -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/gpu_tests.log
timeout 160 python3 -m tccg --dtype f16 --ops none,leaky_relu --order F --no-peers --no-plots --out $OUT/ops 2>&1 | grep -v "tccg gpu" > $OUT/ops_log.txt
grep "geomean\|verified" $OUT/ops_log.txt
