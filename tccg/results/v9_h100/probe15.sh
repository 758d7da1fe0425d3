#!/bin/bash
# Session 6, fifteenth device call: interleaved outputs staged through a workspace in the input's order
# (schedule._stage_interleaved; off: STAGE_D_RATIO patched) on #1-#4; GPU tests of the staged paths.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
for rule in off on; do
timeout 120 python3 -c "
import sys, importlib; s = importlib.import_module('gettpy.plan.schedule')
if '$rule' == 'off': s.STAGE_D_RATIO = 10**9
from tccg.runner import main
sys.exit(main(['--dtype', 'f16,f16f32,f32', '--cases', '1-4', '--order', 'F', '--no-peers', '--no-plots', '--out', '$OUT/csv_$rule']))
" 2>&1 | grep -E "^ *[0-9]+ " | tee $OUT/stage_d_$rule.txt
done
timeout 200 python3 -m pytest tests/test_schedule.py tests/test_permute.py -m gpu -q 2>&1 | tail -2 | tee $OUT/gpu_tests_stage.log
