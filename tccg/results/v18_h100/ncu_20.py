"""#20 (abcd-aebf-dfce, f32) for Nsight Compute: gettpy ('gettpy') or cuTENSOR's default algorithm ('cutensor')
into D's column-major layout, run three times (the headline verified both against float64).
Usage: python3 ncu_20.py gettpy|cutensor"""
import sys

import cupy as cp
import numpy as np

sys.path.insert(0, ".")
from tccg import peers  # noqa: E402
from tccg.suite import parse_cases  # noqa: E402

case = parse_cases("20")[0]
sa, sb, sd = case.shapes()
rng = np.random.default_rng(20)
a, b = (cp.asarray(np.asfortranarray(rng.uniform(-1, 1, s).astype(np.float32)), order="F") for s in (sa, sb))
d = cp.empty(sd, cp.float32, order="F")
if sys.argv[1] == "gettpy":
    call = peers.gettpy_call(case.einsum_subscripts(), a, b, d, "f32", "none")
else:
    call = peers.cutensor_call(case.modes, a, b, d, "f32", "none", peers.cutensor_algos()[0][1])
for _ in range(3):
    call()
cp.cuda.Device().synchronize()
print(sys.argv[1], "done", float(cp.abs(d).max()))
