#!/bin/bash
# v17 call 7 (H100): the long-narrow rule (#2 on the warp-specialised wgmma tile). Its GPU tests and the other
# tile families' (wgmma, persistent, prefetch, resident, tuner, peers); #2 end to end in f16, f16->f32 and f32
# beside torch (cuTENSOR not loaded); f16 none vs leaky_relu over the 48; heuristic vs tuned on #2.
set -u
export PYTHONUNBUFFERED=1
O=$OUT/call7; mkdir -p $O
timeout 240 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gpu_narrow_ws.py tests/test_gpu_wgmma.py \
  tests/test_gpu_persistent.py tests/test_gpu_prefetch.py tests/test_gpu_resident.py tests/test_gpu_tune.py \
  tests/test_gpu_peers.py 2>&1 | tail -n 5 | tee $O/gpu_tests.txt
timeout 90 python3 -m tccg --cases 2 --dtype f16,f16f32,f32 --order F --no-plots --out $O/e2e 2>&1 | grep -v "tccg gpu" \
  > $O/e2e_log.txt; grep -E "^ +2 |slower|layout of its own" $O/e2e_log.txt
timeout 150 python3 -m tccg --dtype f16 --ops none,leaky_relu --order F --no-peers --no-plots --out $O/ops 2>&1 \
  | grep -v "tccg gpu" > $O/ops_log.txt
python3 - <<'PY'
import csv, glob, math, os
rows = {}
for f in glob.glob(os.path.join(os.environ["OUT"], "call7", "ops", "*.csv")):
    for r in csv.DictReader(open(f)):
        rows[int(r["num"]), r["ops"]] = float(r["gettpy_ms"])
lg = [math.log(rows[n, "leaky_relu"] / rows[n, "none"]) for n in range(1, 49)]
print("ops #2: none %.4f leaky %.4f" % (rows[2, "none"], rows[2, "leaky_relu"]))
print(f"leaky_relu / none, geomean over 48: {math.exp(sum(lg) / 48):.4f}")
PY
grep "verified" $O/ops_log.txt
timeout 60 python3 -m tccg --tune --cases 2 --dtype f16 --order F --no-peers --no-plots --tune-samples 16 --tune-top 4 \
  --out $O/tune 2>&1 | grep -v "tccg gpu\|tune:" > $O/tune_2.txt; grep -E "^ +2 |autotuning" $O/tune_2.txt
