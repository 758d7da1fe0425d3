"""Session 11 probe: is a TMA-fed kernel faster than the cp.async ones at reading #2's big input when its boxes
are contiguous rows? The core in the big input's order, n = (c, a), into a workspace W[c, a, b] (D's n then
one stride-1 term: contiguous stores), on the heuristic's tile, TMA tiles (plain and persistent) and
cp.async warp-specialised ones. Each checked against float64 (the workspace permuted back), then timed
round-robin (events around 5 launches, median of 3 x 20)."""
import statistics
import sys
from dataclasses import replace

import cupy
import numpy as np

from gettpy.backends.gpu import launch
from gettpy.plan.partition import Partition
from gettpy.plan.plan import make_plan
from gettpy.plan.schedule import packed
from gettpy.plan.tiles import kernel_spec
from tccg.runner import case_problem
from tccg.suite import parse_cases
from tccg.tile_probe import parse_tile

case = parse_cases("2")[0]
p = case_problem(case, "f16", "f16")
ext = dict(p.extents)
w = packed(p.d, ("c", "a", "b"), ext)
plan = make_plan(replace(p, d=w), Partition(("b",), ("c", "a"), ("d",), (), True))
print("W's n map:", plan.layout_d, flush=True)
sa, sb, _ = case.shapes()
rng = np.random.default_rng(2)
a = cupy.asarray(np.asfortranarray(rng.uniform(-1, 1, sa).astype(np.float16)), order="F")
b = cupy.asarray(np.asfortranarray(rng.uniform(-1, 1, sb).astype(np.float16)), order="F")
ref = cupy.einsum(case.einsum_subscripts(), a.astype(cupy.float64), b.astype(cupy.float64))  # (a, b, c)
wbuf = cupy.empty(ext["c"] * ext["a"] * ext["b"], dtype=cupy.float16)
tiles = [None] + [parse_tile(t) for t in sys.argv[1].split(",")]
runs = []
for t in tiles:
    try:
        spec = kernel_spec(plan, False, tile=t) if t else kernel_spec(plan, False)
        run = lambda spec=spec: launch(spec, b.data.ptr, a.data.ptr, 0, wbuf.data.ptr, 1.0, 0.0)  # (swapped)
        wbuf.fill(cupy.nan)
        run()
        got = wbuf.reshape(ext["b"], ext["a"], ext["c"]).transpose(1, 0, 2).astype(cupy.float64)  # W[c,a,b] F-order
        err = float(cupy.abs(got - ref).max() / cupy.abs(ref).max())
        runs.append((spec, run, err, []))
    except Exception as e:  # noqa: BLE001
        print("tile", t, type(e).__name__, str(e)[:200], flush=True)
for _ in range(3):
    for spec, run, _, times in runs:
        for _ in range(20):
            e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
            e0.record()
            for _ in range(5):
                run()
            e1.record()
            e1.synchronize()
            times.append(cupy.cuda.get_elapsed_time(e0, e1) / 5)
for spec, _, err, times in runs:
    t = spec.tile
    kind = ("t" if t.tma else "x" if t.ws else "") + ("p" if t.persistent else "")
    print(f"W[c,a,b] {t.bm}x{t.bn}x{t.bk}/{t.stages}{kind} {spec.path:5s} {statistics.median(times) * 1e3:7.1f} us "
          f"err {err:.1e}{'  WRONG' if not err < 1e-2 else ''}", flush=True)
