#!/bin/bash
# Session 13, second call (the code of this commit): f16 none vs leaky_relu over the 48 (peers off), v15's
# code (_old/, carried) on #1 / #2 beside it; the GPU tests of the changed schedule and the fragment ops;
# then heuristic vs tuned over the 48 in f16 (as v14's final_tests2.sh).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 130 python3 -m tccg --dtype f16 --ops none,leaky_relu --order F --no-peers --no-plots --out $OUT/ops 2>&1 | grep -v "tccg gpu" > $OUT/ops_log.txt
(cd _old && timeout 60 python3 -m tccg --dtype f16 --ops leaky_relu --order F --no-peers --no-plots --cases 1,2 --out $OUT/old 2>&1 | grep -v "tccg gpu" > $OUT/old_log.txt)
timeout 120 python3 -m pytest tests/test_gpu_frag_ops.py tests/test_schedule.py tests/test_gpu_resident.py -m gpu -q -p no:cacheprovider 2>&1 | tail -n 3 | tee $OUT/gpu_tests.log
timeout 200 python3 -m tccg --tune --cases 1-48 --dtype f16 --order F --no-peers --no-plots --tune-samples 16 --tune-top 4 --out $OUT/tune 2>&1 | grep -v "tccg gpu\|tune:" > $OUT/tune_f16.txt
python3 - <<'PY'
import csv, glob, math, os
rows = {}
for f in glob.glob(os.path.join(os.environ["OUT"], "ops", "*.csv")) + glob.glob(os.path.join(os.environ["OUT"], "old", "*.csv")):
    for r in csv.DictReader(open(f)):
        rows[int(r["num"]), r["ops"], "old" in f.split("/")[-2]] = float(r["gettpy_ms"])
lg = 0.0
for n in range(1, 49):
    a, b = rows[n, "none", False], rows[n, "leaky_relu", False]
    lg += math.log(b / a)
    old = rows.get((n, "leaky_relu", True))
    print(f"{n:2d} none {a:.4f} leaky {b:.4f} x{b / a:.3f}" + (f"  (v15 code: {old:.4f} x{old / a:.3f})" if old else ""))
print(f"leaky_relu / none, geomean over 48: {math.exp(lg / 48):.4f}")
PY
grep "geomean\|verified" $OUT/ops_log.txt
grep -i "autotuning\|geomean" $OUT/tune_f16.txt
