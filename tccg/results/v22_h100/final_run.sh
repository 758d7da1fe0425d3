#!/bin/bash
# v22 headline on the final code (after the cuTENSOR parts are in /tmp/ct, see ../shared/tools/cutensor-parts.sh):
# the chunked epilogue's GPU tests, then f16, f16->f32 and f32, order F, all 48, cuTENSOR 2.8 and
# torch in the same run, then f16 none vs leaky_relu (peers off). Files under $OUT/${1:-headline}.
export PYTHONUNBUFFERED=1
O=$OUT/${1:-headline}; mkdir -p $O
cp .ct/p03 /tmp/ct/ 2>/dev/null; source .ct/setup.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $O/gpu.txt
timeout 60 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py -k chunked 2>&1 | tail -2 > $O/tests.txt
cat $O/tests.txt
timeout 330 python3 -m tccg --dtype f16,f16f32,f32 --order F --no-plots --out $O 2>&1 | grep -v "tccg gpu" > $O/log.txt
tail -40 $O/log.txt
timeout 100 python3 -m tccg --dtype f16 --ops none,leaky_relu --order F --no-peers --no-plots --out $O/ops 2>&1 \
  | grep -v "tccg gpu" > $O/ops_log.txt
grep "geomean\|verified" $O/ops_log.txt
