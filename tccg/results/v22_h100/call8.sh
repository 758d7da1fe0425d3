#!/bin/bash
# v22 call 8 (H100, after the cuTENSOR parts; final code plus the runner's --reverse-pass): f16, order F, all 48 with
# cuTENSOR 2.8 and torch, each contraction's cuTENSOR default, torch and gettpy timed a second time in reverse order
# (the GEMM-heavy cases leave the GPU in a slower state for whatever comes next: #41 alone 0.0347 / 0.0348 ms, right
# after #12 0.0388 / 0.0369, call7/). Not a headline: the measurement of how many of the f16 ties survive both orders.
# (Ran at commit 4b173a8; --reverse-pass became --interleave after it.)
export PYTHONUNBUFFERED=1
O=$OUT/${1:-call8}; mkdir -p $O
cp .ct/p03 /tmp/ct/ 2>/dev/null; source .ct/setup.sh
timeout 400 python3 -m tccg --dtype f16 --order F --no-plots --reverse-pass --out $O 2>&1 | grep -v "tccg gpu" > $O/log.txt
grep -E "verified|geomean|slower" $O/log.txt
