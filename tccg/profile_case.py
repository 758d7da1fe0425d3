"""Run one TCCG contraction's gettpy call a few times (for a profiler such as Nsight Compute).

    ncu --kernel-name regex:gett_ --launch-skip 2 --launch-count 1 python -m tccg.profile_case 20 f16

Verifies the result against float64 first (like every benchmark in tccg/), then launches it `--reps` more times.
"""
from __future__ import annotations

import argparse

import numpy as np


def main(argv=None) -> int:
    import cupy

    import gettpy

    from .suite import parse_cases

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("case", type=int)
    ap.add_argument("dtype", choices=["f16", "f32"])
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args(argv)
    case = parse_cases(str(args.case))[0]
    dt = np.float16 if args.dtype == "f16" else np.float32
    rng = np.random.default_rng(case.num)
    sa, sb, _ = case.shapes()
    a = cupy.asarray(np.asfortranarray(rng.uniform(-1, 1, sa).astype(dt)), order="F")
    b = cupy.asarray(np.asfortranarray(rng.uniform(-1, 1, sb).astype(dt)), order="F")
    subs = case.einsum_subscripts()
    d = gettpy.einsum(subs, a, b)
    ref = cupy.einsum(subs, a.astype(cupy.float64), b.astype(cupy.float64))
    err = float(cupy.abs(d.astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
    print(f"#{case.num} {subs} {args.dtype}: max rel err {err:.1e}")
    for _ in range(args.reps):
        gettpy.einsum(subs, a, b)
    cupy.cuda.Device().synchronize()
    return 0 if err < 1e-2 else 1


if __name__ == "__main__":
    raise SystemExit(main())
