#!/bin/bash
# v23: heuristic vs tuned plan over the 48 (peers off) on the final code, f16 then f32. Files under $OUT/tune.
export PYTHONUNBUFFERED=1
O=$OUT/tune; mkdir -p $O
for dt in f16 f32; do
  timeout 270 python3 -m tccg --tune --cases 1-48 --dtype $dt --order F --no-peers --no-plots --tune-samples 16 \
    --tune-top 4 --out $O 2>&1 | grep -v "tccg gpu\|tune:" > $O/tune_$dt.txt
  grep -i "autotuning\|geomean\|verified" $O/tune_$dt.txt
done
