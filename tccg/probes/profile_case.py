"""Run one benchmark contraction's gettpy call a few times (for a profiler such as Nsight Compute).

    ncu --kernel-name regex:gett_ --launch-skip 2 --launch-count 1 python -m tccg.probes.profile_case 20 f16
    ncu ... python -m tccg.probes.profile_case 27 f32 --set real --order C      (a case of another set, row-major)
    ncu ... python -m tccg.probes.profile_case 12 f16 --tile "256x160x64/4@64x160wt:c2"   (the core kernel on a tile)

Verifies the result against float64 first (like every benchmark in tccg/), then launches it `--reps` more times.
"""
from __future__ import annotations

import argparse

import numpy as np


def main(argv=None) -> int:
    import cupy

    import gettpy

    from .. import sets

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("case", type=int)
    ap.add_argument("dtype", choices=["f16", "f32"])
    ap.add_argument("--set", default="tccg", choices=sets.SETS, help="the case's set (default tccg)")
    ap.add_argument("--seed", type=int, default=sets.DEFAULT_SEED, help="the perturbed or real set's seed")
    ap.add_argument("--order", default="F", choices=["C", "F"], help="the inputs' memory order (default F)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--tile", default="", help="launch the core kernel alone on this tile (the syntax of "
                    "tccg.probes.tiles.parse_tile; 'h': the heuristic's), D column-major as the benchmark writes it, "
                    "instead of einsum (TCCG cases, column-major only)")
    args = ap.parse_args(argv)
    found = [c for c in sets.cases_of(args.set, args.seed) if c.num == args.case and not c.dtypes]
    if not found:
        raise SystemExit(f"{args.set} has no real-valued case #{args.case} (seed {args.seed})")
    case = found[0]
    if args.tile:
        if args.set != "tccg" or args.order != "F":
            raise SystemExit("--tile launches TCCG cases in column-major order only")
        return _core(case, args)
    dt = np.float16 if args.dtype == "f16" else np.float32
    rng = np.random.default_rng(case.num)
    sa, sb, _ = case.shapes()
    lay = np.asfortranarray if args.order == "F" else np.ascontiguousarray
    a = cupy.asarray(lay(rng.uniform(-1, 1, sa).astype(dt)), order=args.order)
    b = cupy.asarray(lay(rng.uniform(-1, 1, sb).astype(dt)), order=args.order)
    subs = case.einsum_subscripts()
    d = gettpy.einsum(subs, a, b)
    ref = cupy.einsum(subs, a.astype(cupy.float64), b.astype(cupy.float64))
    err = float(cupy.abs(d.astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
    print(f"{args.set} #{case.num} {subs} {args.dtype} {args.order}: max rel err {err:.1e}")
    for _ in range(args.reps):
        gettpy.einsum(subs, a, b)
    cupy.cuda.Device().synchronize()
    return 0 if err < 1e-2 else 1


def _core(case, args) -> int:
    import cupy

    from .tiles import core_inputs, parse_tile, tile_run

    inputs = core_inputs(case, args.dtype, args.dtype)
    if inputs is None:
        raise SystemExit(f"#{case.num}: a split-K schedule has no single core kernel to launch")
    _, plan, ka, kb, d, ref = inputs
    spec, run = tile_run(plan, None if args.tile == "h" else parse_tile(args.tile), ka, kb, d)
    run()
    err = float(cupy.abs(d.astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
    print(f"#{case.num} {args.dtype} core kernel, tile {spec.tile}: max rel err {err:.1e}")
    for _ in range(args.reps):
        run()
    cupy.cuda.Device().synchronize()
    return 0 if err < 1e-2 else 1


if __name__ == "__main__":
    raise SystemExit(main())
