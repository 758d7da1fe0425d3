#!/bin/bash
# Session 6, eleventh device call: ccsd_t without the small-permuted-input pack (SMALL_PACK patched)
# against the rule as it is, f16 and f32.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
for rule in pack nopack; do
timeout 150 python3 -c "
import sys, importlib; s = importlib.import_module('gettpy.plan.schedule')
if '$rule' == 'nopack': s.SMALL_PACK = 10**9
from tccg.runner import main
sys.exit(main(['--dtype', 'f16,f32', '--cases', '31,32,34,35,37,38,41,42,44,45,47,48', '--order', 'F', '--no-peers', '--no-plots', '--out', '$OUT/csv_$rule']))
" 2>&1 | grep -E "^ *[0-9]+ |geomean" | tee $OUT/ccsd_$rule.txt
done
