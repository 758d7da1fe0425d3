#!/bin/bash
# Session 8 call 5: the new heuristics end to end (f32 #2 narrow tile, #13 / #14 split cores) with torch's
# copy into D measured where its result is not in D's layout; GPU tests of the schedule, stream-K and
# f32 / f64 paths.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
python3 -m tccg --cases 1,2,13,14 --dtype f16,f32 --no-plots --out $OUT/e2e 2>&1 | grep -v "tccg gpu" > $OUT/e2e.txt
grep -E "^ +[0-9]+ |slower|layout" $OUT/e2e.txt
timeout 420 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_stream_k.py tests/test_schedule.py \
  tests/test_tccg_runner.py tests/test_gpu.py -m gpu -k "f32 or f64 or stream_k or schedule or split" \
  2>&1 | tail -4 | tee $OUT/gpu_tests.txt
