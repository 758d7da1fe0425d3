#!/bin/bash
# Session 6, twelfth device call: interleaving the output's run with the next-smallest stride of an input
# read along k (partition.KMAJOR_INTERLEAVE; #2, #5) against the partition without it.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
for flag in False True; do
timeout 120 python3 -c "
import sys, importlib; p = importlib.import_module('gettpy.plan.partition'); p.KMAJOR_INTERLEAVE = $flag
from tccg.runner import main
sys.exit(main(['--dtype', 'f16,f16f32,f32', '--cases', '2,5,1', '--order', 'F', '--no-plots', '--out', '$OUT/csv_$flag']))
" 2>&1 | grep -E "^ *[0-9]+ " | tee $OUT/kmajor_interleave_$flag.txt
done
timeout 120 python3 -m pytest tests/test_gpu.py -m gpu -q -k "interleaved or tccg" 2>&1 | tail -2 | tee $OUT/gpu_tests_interleave.log
