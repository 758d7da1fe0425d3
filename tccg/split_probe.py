"""Time the split-K schedules of TCCG contractions under forced tiles and split factors.

    python -m tccg.split_probe --cases 13,14 --splits c/8,c/37,d/13 --tiles 128x128x64/3@64x128w

Each schedule (packs, the split core, the sum) is checked against float64 first, then timed with CUDA
graph replays over two input sets (tccg.timing); the heuristic's schedule comes first. Needs a GPU.
"""
from __future__ import annotations

import argparse

import numpy as np

from .runner import case_problem
from .suite import parse_cases
from .tile_probe import parse_tile


def main(argv=None) -> int:
    import cupy

    from gettpy.backends import gpu, staged
    from gettpy.plan.schedule import make_schedule
    from gettpy.plan.tiles import kernel_spec

    from .timing import time_cupy

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="13,14")
    ap.add_argument("--splits", default="", help="MODE/SLICES, comma separated (e.g. c/37,d/13)")
    ap.add_argument("--tiles", default="", help="tiles as tccg.tile_probe --tiles (empty: the heuristic's)")
    ap.add_argument("--dtype", default="f16", choices=["f16", "f32"])
    args = ap.parse_args(argv)
    splits = [(t.split("/")[0], int(t.split("/")[1])) for t in args.splits.split(",") if t]
    tiles = [None] + [parse_tile(t) for t in args.tiles.split(",") if t]
    for case in parse_cases(args.cases):
        p = case_problem(case, args.dtype, args.dtype)
        dt = np.float16 if args.dtype == "f16" else np.float32
        sa, sb, sd = case.shapes()
        rng = np.random.default_rng(case.num)
        sets = []
        for _ in range(2):
            a, b = (cupy.asarray(np.asfortranarray(rng.uniform(-1, 1, s).astype(dt)), order="F")
                    for s in (sa, sb))
            sets.append((a, b, cupy.empty(sd, dtype=dt, order="F")))
        ref = cupy.einsum(case.einsum_subscripts(), sets[0][0].astype(cupy.float64), sets[0][1].astype(cupy.float64))
        for tile in tiles:
            for split in [None] + splits:
                try:
                    sched = make_schedule(p, tile=tile, split=split)
                    call = lambda st, sched=sched: staged.run(sched, cupy, gpu.execute, st[0], st[1], None, st[2])  # noqa: E731
                    sets[0][2].fill(cupy.nan)
                    call(sets[0])
                    err = float(cupy.abs(sets[0][2].astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
                    ms, how, _ = time_cupy([lambda st=st, call=call: call(st) for st in sets])
                    t = kernel_spec(sched.core, False).tile
                    what = f"{sched.split_mode}/{sched.core.batch}" if sched.split_mode else "no split"
                    kind = "w" if t.wgmma else "" if t.mma else "s"
                    print(f"#{case.num} split {what:10s} tile {t.bm}x{t.bn}x{t.bk}/{t.stages}{kind} "
                          f"{ms * 1000:8.1f} us ({how}) err {err:.1e}{'  WRONG' if not err < 1e-2 else ''}", flush=True)
                except Exception as e:  # noqa: BLE001 - report and go on
                    print(f"#{case.num} {tile} {split}: {type(e).__name__}: {str(e)[:200]}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
