#!/bin/bash
# v17 headline (after the cuTENSOR parts are in /tmp/ct, see ../shared/tools/cutensor-parts.sh): f16, f16->f32
# and f32, order F, all 48, cuTENSOR 2.8 and torch in the same run (with gettpy timed in torch's own result
# layout where torch won in it), then f16 none vs leaky_relu (peers off). Files under $OUT/${1:-headline}
# (headline/: v16's gettpy/; headline2/ on the final code: final_run2.sh).
export PYTHONUNBUFFERED=1
O=$OUT/${1:-headline}; mkdir -p $O
cp .ct/p03 /tmp/ct/ && source .ct/setup.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $O/gpu.txt
timeout 380 python3 -m tccg --dtype f16,f16f32,f32 --order F --no-plots --out $O 2>&1 | grep -v "tccg gpu" > $O/log.txt
tail -45 $O/log.txt
timeout 150 python3 -m tccg --dtype f16 --ops none,leaky_relu --order F --no-peers --no-plots --out $O/ops 2>&1 \
  | grep -v "tccg gpu" > $O/ops_log.txt
grep "geomean\|verified" $O/ops_log.txt
