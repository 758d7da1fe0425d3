#!/bin/bash
# v30 (H100), after the cuTENSOR parts are in /tmp/ct (../shared/tools/cutensor-parts.sh): the row-stream and ws GPU
# tests on the final code (their set-up now shared), then the v23 headline script unchanged (f16, f16->f32, f32, order
# F, all 48, cuTENSOR 2.8 and torch, --interleave, then f16 none vs leaky_relu with the peers off) into $OUT/${1:-headline2}.
export PYTHONUNBUFFERED=1
mkdir -p $OUT/${1:-headline2}
timeout 120 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_rows.py tests/test_gpu_narrow_ws.py 2>&1 | tail -4 \
  | tee $OUT/${1:-headline2}/tests.txt
exec bash tccg/results/v23_h100/final_run.sh "${1:-headline2}"
