#!/bin/bash
# v17 call 3 (H100): the prefetch issued before a stage's op transform (gett.cuh k-loop). GPU tests of the
# stage ops (every path), then f16 none vs leaky_relu over the 48 (peers off), then the previous commit's
# code (_old/, carried) on #1-#19's leaky_relu beside it. Files under $OUT/call3.
set -u
export PYTHONUNBUFFERED=1
O=$OUT/call3; mkdir -p $O
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gpu.py -k "ops" tests/test_gpu_wgmma.py \
  tests/test_gpu_frag_ops.py tests/test_gpu_resident.py tests/test_gpu_persistent.py tests/test_gpu_stream_k.py \
  2>&1 | tail -n 4 | tee $O/gpu_tests.txt
timeout 150 python3 -m tccg --dtype f16 --ops none,leaky_relu --order F --no-peers --no-plots --out $O/ops 2>&1 \
  | grep -v "tccg gpu" > $O/ops_log.txt
(cd _old && timeout 60 python3 -m tccg --dtype f16 --ops leaky_relu --order F --no-peers --no-plots --cases 1-19 \
  --out $O/old 2>&1 | grep -v "tccg gpu" > $O/old_log.txt)
python3 - <<'PY'
import csv, glob, math, os
O = os.path.join(os.environ["OUT"], "call3")
rows = {}
for sub in ("ops", "old"):
    for f in glob.glob(os.path.join(O, sub, "*.csv")):
        for r in csv.DictReader(open(f)):
            if r["gettpy_ms"]:
                rows[int(r["num"]), r["ops"], sub] = float(r["gettpy_ms"])
lg = 0.0
for n in range(1, 49):
    a, b = rows[n, "none", "ops"], rows[n, "leaky_relu", "ops"]
    lg += math.log(b / a)
    old = rows.get((n, "leaky_relu", "old"))
    print(f"{n:2d} none {a:.4f} leaky {b:.4f} x{b / a:.3f}" + (f"  (previous code: {old:.4f} x{old / a:.3f})" if old else ""))
print(f"leaky_relu / none, geomean over 48: {math.exp(lg / 48):.4f}")
PY
grep "verified" $O/ops_log.txt
