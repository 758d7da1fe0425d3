#!/bin/bash
# v22 call 9 (H100, after the cuTENSOR parts; final code plus the runner's --interleave): f16, order F, all 48 with
# cuTENSOR 2.8 and torch, then per contraction gettpy, torch and cuTENSOR's default algorithm timed again with their
# graph replays in turn (call 8's reverse pass timed gettpy's #12 right after cuTENSOR's 2.4 ms kernel and torch's
# GEMM: 0.4261 ms against 0.3715 in the first pass). Not a headline: how the f16 ties fall when all three libraries run
# through the same stretch of the GPU's clock history.
export PYTHONUNBUFFERED=1
O=$OUT/${1:-call9}; mkdir -p $O
cp .ct/p03 /tmp/ct/ 2>/dev/null; source .ct/setup.sh
timeout 400 python3 -m tccg --dtype f16 --order F --no-plots --interleave --out $O 2>&1 | grep -v "tccg gpu" > $O/log.txt
grep -E "verified|geomean|slower" $O/log.txt
