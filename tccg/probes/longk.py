"""Step times of the long-K kernel's tiles (gettpy.kernels.longk): the measurements behind gettpy/plan/longk.py's
CANDIDATES. Each candidate tile of the input type is forced on each shape, its slices' sum checked against a
float64 product, and timed; the line gives its time, its time per step of the k loop and the model's prediction
(`longk_us`), beside gettpy.einsum as planned and torch.matmul on the same views.

    python -m tccg.probes.longk --dtype f32 --shapes 17x3x3000017,61x17x1234567 --reads kk,mm

A shape is MxNxK (A is M x K, B is N x K). --reads gives each input's order per run: k (k-major: element (r, k) at
r * ld + k) or m (m / n-major: at k * ld + r), the leading dimension the other extent (odd extents: rows at every
alignment). Needs a GPU.
"""
from __future__ import annotations

import argparse

#: the shapes of the step times in CANDIDATES: small M + N, where the steps bound the time, and two GEMMs whose
#: flops do
DEFAULT_SHAPES = "17x3x3000017,29x7x2000003,61x17x1234567,96x33x1583643,94x114x3406031"


def parse_shapes(text: str) -> list[tuple[int, int, int]]:
    """[(M, N, K), ...] of a comma list of MxNxK."""
    out = []
    for item in text.split(","):
        parts = item.strip().lower().split("x")
        if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
            raise ValueError(f"shape {item!r}: expected MxNxK of positive integers, e.g. 61x17x1234567")
        out.append(tuple(int(p) for p in parts))
    return out


def parse_reads(text: str) -> list[tuple[bool, bool]]:
    """[(a_kmajor, b_kmajor), ...] of a comma list of two letters, k or m each (kk, km, mk, mm)."""
    out = []
    for item in text.split(","):
        item = item.strip().lower()
        if len(item) != 2 or any(c not in "km" for c in item):
            raise ValueError(f"reads {item!r}: expected two letters of k (k-major) or m (m / n-major), e.g. kk")
        out.append((item[0] == "k", item[1] == "k"))
    return out


def _input(rows: int, k: int, kmajor: bool, npdt, rng):
    """A rows x K view (CuPy) in the given order, values in [-0.5, 0.5), and its leading dimension."""
    import cupy

    x = (rng.random((rows, k) if kmajor else (k, rows), dtype=cupy.float32) - 0.5).astype(npdt)
    return (x if kmajor else x.T), (k if kmajor else rows)


def probe(dtype: str, shapes, reads, reps: int = 9, max_tiles: int | None = None) -> list[dict]:
    """One row per (shape, reads, candidate tile): times in us, the step time, the model's prediction, the largest
    error relative to max |reference| and whether it is within the tolerance of the input type."""
    import cupy

    from gettpy.plan.target import device_target

    target, rng, rows = device_target(), cupy.random.default_rng(1), []
    for (M, N, K), (akm, bkm) in ((s, r) for s in shapes for r in reads):
        rows += _probe_shape(dtype, M, N, K, akm, bkm, target, rng, reps, max_tiles)
        cupy.get_default_memory_pool().free_all_blocks()
    return rows


def _probe_shape(dtype, M, N, K, akm, bkm, target, rng, reps, max_tiles) -> list[dict]:
    """probe's rows of one shape and pair of reads."""
    import cupy
    import numpy as np

    import gettpy
    from gettpy.dtypes import ITEMSIZE
    from gettpy.kernels.longk import longk_run
    from gettpy.plan import longk as plongk

    from ..timing import time_cupy, time_torch

    npdt = {"f16": np.float16, "f32": np.float32}[dtype]
    tol = {"f16": 2e-3, "f32": 1e-4}[dtype]
    a, lda = _input(M, K, akm, npdt, rng)
    b, ldb = _input(N, K, bkm, npdt, rng)
    ref = a.astype(cupy.float64) @ b.astype(cupy.float64).T
    scale = float(cupy.abs(ref).max()) or 1.0
    base = dict(dtype=dtype, M=M, N=N, K=K, reads=("k" if akm else "m") + ("k" if bkm else "m"))
    base["planned_us"] = 1e3 * time_cupy([lambda: gettpy.einsum("mk,nk->mn", a, b)], reps=reps)[0]
    base["torch_us"] = None
    try:
        import torch

        ta, tb = torch.from_dlpack(a), torch.from_dlpack(b)
        base["torch_us"] = 1e3 * time_torch([lambda: torch.matmul(ta, tb.T)], reps=reps)[0]
    except Exception:  # noqa: BLE001  (torch missing, or its import failing: the line shows '-')
        pass
    rows = []
    for c in plongk.CANDIDATES:
        if c.itemsize != ITEMSIZE[dtype] or (c.step_mn is None and not (akm and bkm)):
            continue
        lay = plongk.candidate_layout(dtype, M, N, K, (akm, lda), (bkm, ldb), c.tile, target,
                                      max_tiles or plongk.MAX_TILES)
        if lay is None:
            continue
        w = longk_run(lay, a, b, 1.0).sum(axis=0)  # (float64 on float64-mma tiles)
        err = float(cupy.abs(w.astype(cupy.float64) - ref).max()) / scale
        us = 1e3 * time_cupy([lambda lay=lay: longk_run(lay, a, b, 1.0)], reps=reps)[0]
        steps = lay.slice // lay.kt
        rows.append(base | dict(tile=c.tile, slices=lay.slices, steps=steps, us=us, step_us=us / steps,
                                model_us=plongk.longk_us(lay, target), err=err, ok=err <= tol))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dtype", choices=["f16", "f32"], default="f32")
    ap.add_argument("--shapes", default=DEFAULT_SHAPES, help="comma list of MxNxK")
    ap.add_argument("--reads", default="kk,mm", help="comma list of kk, km, mk, mm")
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--max-tiles", type=int, default=None,
                    help="also time tiles that cover M x N in up to this many tiles (the planner: MAX_TILES)")
    args = ap.parse_args(argv)
    shapes, reads = parse_shapes(args.shapes), parse_reads(args.reads)
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001
        print(f"tccg.probes.longk needs a CUDA device ({type(e).__name__}: {e})")
        return 1
    print("M x N x K reads | tile (bm x bn / stages, warps) | slices x steps | us | us a step | model us | rel err")
    for r in probe(args.dtype, shapes, reads, args.reps, args.max_tiles):
        t = r["tile"]
        print(f"{r['M']}x{r['N']}x{r['K']} {r['reads']} | {t.bm}x{t.bn}/{t.stages} {t.warps_m}x{t.warps_n}"
              f"{' f64' if t.f64_mma else ''} | "
              f"{r['slices']} x {r['steps']} | {r['us']:.1f} | {r['step_us']:.2f} | {r['model_us']:.1f} | "
              f"{r['err']:.1e}{'' if r['ok'] else ' FAIL'} (planned {r['planned_us']:.1f}, torch "
              f"{'-' if r['torch_us'] is None else format(r['torch_us'], '.1f')})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
