"""Time the schedule's pack copies of TCCG contractions: the tiled copy against CuPy's strided copy and
against a contiguous copy of the same bytes (the bandwidth a pack could reach).

    python -m tccg.pack_probe --cases 14,20,28,31 --dtype f16,f32

Each pack the heuristic schedule makes is built from a random column-major input, checked element for
element against CuPy's copy, then timed with CUDA graph replays (tccg.timing). Bandwidth counts one read
and one write of the packed bytes. Needs a GPU. Prints one line per (case, dtype, packed operand).
"""
from __future__ import annotations

import argparse

import numpy as np

from .runner import case_problem
from .suite import parse_cases


def main(argv=None) -> int:
    import cupy

    from gettpy.backends.staged import _view
    from gettpy.kernels.permute import permute_copy, plan_permute, plan_rowcopy
    from gettpy.plan.schedule import make_schedule

    from .timing import time_cupy

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="14,20,28,31")
    ap.add_argument("--dtype", default="f16,f32")
    args = ap.parse_args(argv)
    for case in parse_cases(args.cases):
        for dt in args.dtype.split(","):
            sched = make_schedule(case_problem(case, dt, dt))
            ext = dict(sched.problem.extents)
            shapes = dict(zip("AB", case.shapes()[:2], strict=True))
            for name, info, pk in (("A", sched.problem.a, sched.pack_a), ("B", sched.problem.b, sched.pack_b)):
                if pk is None:
                    continue
                npdt = np.float16 if dt == "f16" else np.float32
                host = np.random.default_rng(case.num).uniform(-1, 1, shapes[name]).astype(npdt)
                x = cupy.asarray(np.asfortranarray(host), order="F")
                view = _view(cupy, x, info, pk.modes, ext)
                out = cupy.empty(view.shape, dtype=view.dtype)
                ref = cupy.array(view, order="C", copy=True)
                permute_copy(view, out=out)
                ok = bool(cupy.array_equal(out, ref))
                flat = cupy.empty(view.size, dtype=view.dtype)
                src = cupy.ascontiguousarray(x).ravel()
                mb = 2 * view.nbytes / 1e6
                t_tiled = time_cupy([lambda v=view, o=out: permute_copy(v, out=o)])[0]
                t_cupy = time_cupy([lambda v=view, o=out: cupy.copyto(o, v)])[0]
                t_flat = time_cupy([lambda s=src, f=flat: cupy.copyto(f, s)])[0]
                st = tuple(s // view.itemsize for s in view.strides)
                p = plan_permute(tuple(view.shape), st, view.itemsize)
                rc = plan_rowcopy(tuple(view.shape), st, view.itemsize) if p is None else None
                how = (f"tile {p.ti}x{p.to} vec {p.wr}/{p.ww} group {p.group} blocks {p.blocks}" if p is not None
                       else f"row copy vec {rc.w} blocks {rc.blocks}" if rc is not None else "CuPy copy")
                print(f"#{case.num:2d} {dt} pack {name} {view.shape} {mb / 2:.1f} MB: tiled {1e3 * t_tiled:7.1f} us "
                      f"{mb / t_tiled / 1e3:5.2f} TB/s | cupy {1e3 * t_cupy:7.1f} us {mb / t_cupy / 1e3:5.2f} TB/s | "
                      f"contiguous {1e3 * t_flat:7.1f} us {mb / t_flat / 1e3:5.2f} TB/s | {how} | "
                      f"{'ok' if ok else 'WRONG'}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
