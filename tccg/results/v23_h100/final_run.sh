#!/bin/bash
# v23 headline on the final code (after the cuTENSOR parts are in /tmp/ct, see ../shared/tools/cutensor-parts.sh):
# f16, f16->f32 and f32, order F, all 48, cuTENSOR 2.8 and torch in the same run, each contraction then timed again
# with gettpy, torch and cuTENSOR's default replayed in turn (--interleave), then f16 none vs leaky_relu (peers off).
# Files under $OUT/${1:-headline}.
export PYTHONUNBUFFERED=1
O=$OUT/${1:-headline}; mkdir -p $O
cp .ct/p03 /tmp/ct/ 2>/dev/null; source .ct/setup.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $O/gpu.txt
timeout 440 python3 -m tccg --dtype f16,f16f32,f32 --order F --no-plots --interleave --out $O 2>&1 | grep -v "tccg gpu" > $O/log.txt
tail -40 $O/log.txt
timeout 100 python3 -m tccg --dtype f16 --ops none,leaky_relu --order F --no-peers --no-plots --out $O/ops 2>&1 \
  | grep -v "tccg gpu" > $O/ops_log.txt
grep "geomean\|verified" $O/ops_log.txt
