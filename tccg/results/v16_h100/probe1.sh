#!/bin/bash
# Session 13, first call: the ops on A and B applied to mma fragments (frag_op_a beside frag_op_b), mma.sync
# tiles for memory-bound shapes whose inputs carry an op, and no pack pre-applying an op for an mma.sync
# core. GPU tests of the fragment ops, then f16 none vs leaky_relu (all 48, peers off) on this code, then
# leaky_relu on the code of v15 (_old/: `git archive 03c169e gettpy tccg`, carried) in the same call.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 170 python3 -m pytest tests/test_gpu_frag_ops.py tests/test_gpu_resident.py -m gpu -q -p no:cacheprovider 2>&1 | tail -4 | tee $OUT/tests.txt
timeout 200 python3 -m tccg --dtype f16 --ops none,leaky_relu --order F --no-peers --no-plots --out $OUT/new 2>&1 | grep -v "tccg gpu" > $OUT/new_log.txt
(cd _old && timeout 150 python3 -m tccg --dtype f16 --ops leaky_relu --order F --no-peers --no-plots --out $OUT/old 2>&1 | grep -v "tccg gpu" > $OUT/old_log.txt)
grep "geomean\|verified" $OUT/new_log.txt $OUT/old_log.txt
python3 - <<'PY'
import csv, glob, math, os
def load(d):
    out = {}
    for f in glob.glob(os.path.join(os.environ["OUT"], d, "*.csv")):
        for r in csv.DictReader(open(f)):
            out[int(r["num"]), r["ops"]] = float(r["gettpy_ms"]) if r["gettpy_ms"] else float("nan")
    return out
new, old = load("new"), load("old")
ln = lo = 0.0
print(" #   none_ms  new_op  old_op  new/none old/none")
for n in range(1, 49):
    a, b, c = new.get((n, "none")), new.get((n, "leaky_relu")), old.get((n, "leaky_relu"))
    if a and b and c:
        ln += math.log(b / a); lo += math.log(c / a)
        print(f"{n:2d} {a:8.4f} {b:7.4f} {c:7.4f}  {b / a:6.3f}  {c / a:6.3f}")
print(f"geomean op/none: new {math.exp(ln / 48):.4f}  old {math.exp(lo / 48):.4f}")
PY
# the leaky_relu cores on other tiles: the memory-bound shapes (#9-#11, #15-#18), ccsd_t and the narrow ones,
# each against the stage transform on the same tile (':s')
timeout 150 python3 -m tccg.tile_probe --dtype f16 --op leaky_relu --cases 9,10,11,15,16,17,18 --rounds 3 \
  --tiles "H:s,128x128x64/3@64x64:s,128x128x64/3@64x128w,128x64x32/4@64x32:f,64x128x32/4@32x64:f,128x128x32/4@32x64:f" \
  2>&1 | grep -v "tccg gpu" > $OUT/probe_mem.txt
timeout 60 python3 -m tccg.tile_probe --dtype f16 --op leaky_relu --cases 1,3,7,31,33,35,41 --rounds 3 --tiles "H:s" \
  2>&1 | grep -v "tccg gpu" > $OUT/probe_frag.txt
tail -n 4 $OUT/probe_mem.txt $OUT/probe_frag.txt
