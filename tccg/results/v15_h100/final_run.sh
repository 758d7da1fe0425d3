#!/bin/bash
# Session 12 headline: f16, f16->f32 and f32, order F, all 48, cuTENSOR 2.8 and torch in the same run
# (after the cuTENSOR parts are in /tmp/ct, see ../shared/tools/cutensor-parts.sh), then the f16 none vs
# leaky_relu run (peers off), then #12's clocks and power against torch.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
cp .ct/p03 /tmp/ct/ && source .ct/setup.sh
timeout 450 python3 -m tccg --dtype f16,f16f32,f32 --order F --no-plots --out $OUT 2>&1 | grep -v "tccg gpu" > $OUT/log.txt
tail -42 $OUT/log.txt
timeout 130 python3 -m tccg --dtype f16 --ops none,leaky_relu --order F --no-peers --no-plots --out $OUT/ops 2>&1 | grep -v "tccg gpu" > $OUT/ops_log.txt
grep "geomean" $OUT/ops_log.txt
timeout 40 env PYTHONPATH=. python3 tccg/results/v12_h100/clock_probe.py 12 2>&1 | tee $OUT/clock_12.txt
