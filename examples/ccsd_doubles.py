"""A CCSD-like doubles residual through gettpy, checked against numpy (float64).

    python examples/ccsd_doubles.py [--nocc 8] [--nvirt 24] [--dtype float64] [--reps 10]

The doubles amplitudes T[a,b,i,j] (a, b virtual; i, j occupied) and the two-electron integrals are
random (symmetric where the physics makes them so); the residual collects the usual contractions of a
CCSD doubles equation (the linear terms and one quadratic term):

    R[abij] =  W_vvvv[abcd] T[cdij]                       (particle-particle ladder, the big one)
            +  W_oooo[klij] T[abkl]                       (hole-hole ladder)
            +  P(ab)P(ij) W_ovvo[kbcj] T[acik]            (ring terms; P(xy) f = f - f with x, y swapped)
            +  W_oovv[klcd] T[acik] T[dblj]               (a quadratic term: three operands)

Each term is one `gettpy.einsum` call (the three-operand term is contracted pairwise in
opt_einsum's order). With CuPy and a GPU the arrays live on the device and the script also times
gettpy against cupy.einsum and torch.einsum; without a GPU it runs on gettpy's CPU executor.
"""
from __future__ import annotations

import argparse
import functools
import time

import numpy as np

import gettpy

TERMS = [
    ("ladder_pp", "abcd,cdij->abij", ("Wvvvv", "T")),
    ("ladder_hh", "klij,abkl->abij", ("Woooo", "T")),
    ("ring", "kbcj,acik->abij", ("Wovvo", "T")),
    ("quadratic", "klcd,acik,dblj->abij", ("Woovv", "T", "T")),
]


def make_inputs(nocc: int, nvirt: int, rng) -> dict[str, np.ndarray]:
    o, v = nocc, nvirt
    t = rng.uniform(-0.1, 0.1, (v, v, o, o))
    t = 0.5 * (t + t.transpose(1, 0, 3, 2))  # T[abij] = T[baji]
    w = {
        "Wvvvv": rng.uniform(-1, 1, (v, v, v, v)),
        "Woooo": rng.uniform(-1, 1, (o, o, o, o)),
        "Wovvo": rng.uniform(-1, 1, (o, v, v, o)),
        "Woovv": rng.uniform(-1, 1, (o, o, v, v)),
    }
    w["Wvvvv"] = 0.5 * (w["Wvvvv"] + w["Wvvvv"].transpose(2, 3, 0, 1))  # (ab|cd) = (cd|ab)
    return {"T": t, **w}


def _perm(r, axes):
    """Axes permutation of a numpy/CuPy array or a torch tensor."""
    return r.permute(*axes) if hasattr(r, "permute") else r.transpose(axes)


def residual(einsum, x: dict) -> dict:
    """Each term of R (and their sum), computed with `einsum` (gettpy.einsum or numpy.einsum)."""
    out = {}
    for name, subs, operands in TERMS:
        r = einsum(subs, *(x[o] for o in operands))
        if name == "ring":  # P(ab)P(ij)
            r = r - _perm(r, (1, 0, 2, 3)) - _perm(r, (0, 1, 3, 2)) + _perm(r, (1, 0, 3, 2))
        out[name] = r
    out["R"] = sum(out[name] for name, _, _ in TERMS)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nocc", type=int, default=8)
    ap.add_argument("--nvirt", type=int, default=24)
    ap.add_argument("--dtype", default="float64", choices=["float64", "float32"])
    ap.add_argument("--reps", type=int, default=10)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(2026)
    host = make_inputs(args.nocc, args.nvirt, rng)
    ref = residual(functools.partial(np.einsum, optimize=True), host)  # (without optimize the quadratic term
    # is an 8-index loop: minutes at nocc=16, nvirt=64)

    try:
        import cupy
        gpu = cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - no CuPy or no device: CPU executor
        gpu = False
    xp = cupy if gpu else np
    x = {k: xp.asarray(v.astype(args.dtype)) for k, v in host.items()}
    where = f"GPU ({cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()})" if gpu else "CPU executor (no GPU)"
    print(f"CCSD-like doubles residual, nocc={args.nocc} nvirt={args.nvirt}, {args.dtype}, on the {where}")

    got = residual(gettpy.einsum, x)
    tol = 1e-10 if args.dtype == "float64" else 1e-4
    ok = True
    for name in [t[0] for t in TERMS] + ["R"]:
        g = cupy.asnumpy(got[name]) if gpu else got[name]
        err = float(np.max(np.abs(g - ref[name])) / np.max(np.abs(ref[name])))
        ok &= err < tol
        print(f"  {name:<10} max rel err vs numpy float64 {err:.2e}  {'ok' if err < tol else 'WRONG'}")

    if gpu:
        def timed(fn):
            fn()
            cupy.cuda.Device().synchronize()
            ts = []
            for _ in range(args.reps):
                e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
                e0.record()
                fn()
                e1.record()
                e1.synchronize()
                ts.append(cupy.cuda.get_elapsed_time(e0, e1))
            return float(np.median(ts))
        tg = timed(lambda: residual(gettpy.einsum, x))
        line = f"  residual: gettpy {tg:.3f} ms"
        try:  # (without optimize, cupy.einsum's three-operand term asks for a 4 TB intermediate)
            tc = timed(lambda: residual(functools.partial(cupy.einsum, optimize=True), x))
            line += f", cupy.einsum {tc:.3f} ms"
        except Exception as e:  # noqa: BLE001 - a peer's failure is reported, not fatal
            line += f", cupy.einsum failed ({type(e).__name__})"
        try:
            import torch

            xt = {k: torch.from_dlpack(v) for k, v in x.items()}
            tt = timed(lambda: residual(torch.einsum, xt))  # torch runs on the same (legacy default) stream
            line += f", torch.einsum {tt:.3f} ms"
        except ImportError:
            line += ", torch not installed"
        print(f"{line} (median of {args.reps}, CUDA events)")
    else:
        t0 = time.perf_counter()
        residual(gettpy.einsum, x)
        print(f"  residual on the CPU executor: {1e3 * (time.perf_counter() - t0):.1f} ms (not a benchmark)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
