"""Session 8 probe: TCCG #2 (abc-dca-bd) under alternative schedules, f16 and f32.

V0 heuristic; V1 core in the big input's order (n = c, a) into a workspace W[c,a,b], then the tiled copy
into D (what torch does: GEMM + permute); V2 n interleaved (a_lo, c, a_hi) in place; V3/V4 wider bk.
Each checked against float64, then timed with tccg.timing.time_cupy (graph replays, 2 input sets).
"""
import sys
from dataclasses import replace

import cupy
import numpy as np

from gettpy.backends import gpu, staged
from gettpy.plan.partition import Partition
from gettpy.plan.plan import make_plan
from gettpy.plan.problem import TensorInfo
import importlib
S = importlib.import_module("gettpy.plan.schedule")
from gettpy.plan.tiles import kernel_spec
from tccg.runner import case_problem
from tccg.suite import parse_cases
from tccg.tile_probe import parse_tile
from tccg.timing import time_cupy

case = parse_cases("2")[0]
for dt in sys.argv[1].split(","):
    p = case_problem(case, dt, dt)
    ext = dict(p.extents)
    npdt = np.float16 if dt == "f16" else np.float32
    sa, sb, sd = case.shapes()
    rng = np.random.default_rng(2)
    sets = []
    for _ in range(2):
        a, b = (cupy.asarray(np.asfortranarray(rng.uniform(-1, 1, s).astype(npdt)), order="F") for s in (sa, sb))
        sets.append((a, b, cupy.empty(sd, dtype=npdt, order="F")))
    ref = cupy.einsum(case.einsum_subscripts(), sets[0][0].astype(cupy.float64), sets[0][1].astype(cupy.float64))
    w = S.packed(TensorInfo("workspace", p.d.modes, (0,) * len(p.d.modes), p.d.dtype), ("c", "a", "b"), ext)
    variants = {"V0 heuristic": S.make_schedule(p),
                "V1 W[c,a,b] + copy": S.Schedule(p, make_plan(replace(p, d=w)), None, None, w, None)}
    for lo in (8, 4) if dt == "f32" else (8,):
        try:
            part = Partition(("b",), ("a", "c"), ("d",), (), True, 0, lo)
            variants[f"V2 interleave a_lo={lo}"] = S.make_schedule(p, part=part)
        except Exception as e:  # noqa: BLE001
            print(dt, "V2", lo, type(e).__name__, e)
    tiles = (["32x256x128/2@32x32", "32x128x128/3@32x32", "32x256x64/4@32x32", "32x128x64/4@32x32", "32x128x64/3@32x32", "32x64x64/4@32x32"] if dt == "f16"
             else ["24x128x32/4@3x4s", "24x256x16/4@3x8s", "24x64x16/6@3x2s", "32x128x32/3@4x4s"])
    for t in tiles:
        try:
            variants[f"V0 tile {t}"] = S.make_schedule(p, tile=parse_tile(t))
        except Exception as e:  # noqa: BLE001
            print(dt, t, type(e).__name__, e)
    for name, sched in variants.items():
        try:
            call = lambda st, sched=sched: staged.run(sched, cupy, gpu.execute, st[0], st[1], None, st[2])  # noqa: E731
            sets[0][2].fill(cupy.nan)
            call(sets[0])
            err = float(cupy.abs(sets[0][2].astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
            ms, how, _ = time_cupy([lambda st=st, call=call: call(st) for st in sets])
            t = kernel_spec(sched.core, False).tile
            print(f"#2 {dt} {name:28s} tile {t.bm}x{t.bn}x{t.bk}/{t.stages} {ms * 1000:7.1f} us ({how}) "
                  f"err {err:.1e}{'  WRONG' if not err < 1e-2 else ''}", flush=True)
        except Exception as e:  # noqa: BLE001
            print(f"#2 {dt} {name}: {type(e).__name__}: {str(e)[:300]}", flush=True)
