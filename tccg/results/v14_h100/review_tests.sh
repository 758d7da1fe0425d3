#!/bin/bash
# Session 11, after the review mends: the TMA / cluster / persistent / wgmma GPU tests (chunked and direct
# epilogues, split tensor maps) and #12 end to end against torch.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 330 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py tests/test_gpu_cluster.py tests/test_gpu_wgmma.py 2>&1 | tail -3 | tee $OUT/tests.txt
timeout 100 python3 -m tccg --cases 2,12 --dtype f16 --order F --no-plots --out /tmp/e2e 2>&1 | grep -E "^ *(2|12) |slower|verified" | tee $OUT/e2e.txt
