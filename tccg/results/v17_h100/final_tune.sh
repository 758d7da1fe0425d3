#!/bin/bash
# v17: heuristic vs tuned plan over the 48 in f16 (peers off), the same code as final_run.sh. Files under $OUT/tune.
export PYTHONUNBUFFERED=1
O=$OUT/tune; mkdir -p $O
timeout 290 python3 -m tccg --tune --cases 1-48 --dtype f16 --order F --no-peers --no-plots --tune-samples 16 \
  --tune-top 4 --out $O 2>&1 | grep -v "tccg gpu\|tune:" > $O/tune_f16.txt
grep -i "autotuning\|geomean\|verified" $O/tune_f16.txt
