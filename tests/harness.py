"""Helpers shared by the tests: random non-zero inputs and a per-dtype tolerance check."""
from __future__ import annotations

import numpy as np

#: tolerance relative to max |ref| (the reference is computed in float64/complex128)
RTOL = {
    np.dtype(np.float16): 1e-2,
    np.dtype(np.float32): 1e-5,
    np.dtype(np.float64): 1e-12,
    np.dtype(np.complex64): 1e-5,
    np.dtype(np.complex128): 1e-12,
}

DTYPES = (np.float16, np.float32, np.float64, np.complex64, np.complex128)


def assert_close(got, ref, dtype=None, scale=None) -> None:
    """Assert `got` matches the float64/complex128 reference `ref` within the tolerance of `dtype`.

    The tolerance is relative to max |ref| (absolute 1 when ref is all zeros or empty), or to `scale`
    where that is larger (random tests pass `magnitude(...)`, the size of the terms summed, so that a
    result that cancels to nearly 0 does not make the check flaky); positions where ref is finite but
    got is NaN/inf fail regardless of the tolerance.
    """
    got_a = np.asarray(got)
    ref_a = np.asarray(ref)
    dt = np.dtype(dtype if dtype is not None else got_a.dtype)
    tol = RTOL.get(dt)
    if tol is None:
        raise AssertionError(f"no tolerance for dtype {dt}")
    assert got_a.shape == ref_a.shape, f"shape {got_a.shape} != reference shape {ref_a.shape}"
    if ref_a.size == 0:
        return
    wide = np.complex128 if np.iscomplexobj(got_a) or np.iscomplexobj(ref_a) else np.float64
    g = np.atleast_1d(got_a.astype(wide))
    r = np.atleast_1d(ref_a.astype(wide))
    bad = np.isfinite(r) & ~np.isfinite(g)
    assert not bad.any(), (f"got non-finite values where the reference is finite at "
                           f"{np.argwhere(bad)[:5].tolist()}: got {g[bad][:5]}, ref {r[bad][:5]}")
    finite = np.isfinite(r)
    scale = max(float(np.max(np.abs(r[finite]), initial=0.0)), float(scale or 0.0)) or 1.0
    err = np.abs(g - r)
    err[~finite] = 0.0
    worst = float(err.max(initial=0.0))
    if worst > tol * scale:
        idx = np.unravel_index(int(np.argmax(err)), err.shape)
        raise AssertionError(f"max error {worst:.3e} > {tol:.0e} * max|ref| ({scale:.3e}) for {dt} at index "
                             f"{tuple(int(i) for i in idx)}: got {g[idx]!r}, ref {r[idx]!r}")


def nonzero(rng: np.random.Generator, shape, dtype=np.float64) -> np.ndarray:
    """Random values with |x| in [0.5, 1.5) and random signs (never 0), in `dtype`."""
    shape = tuple(shape)
    mag = rng.uniform(0.5, 1.5, size=shape)
    x = np.where(rng.random(shape) < 0.5, -mag, mag)
    if np.issubdtype(np.dtype(dtype), np.complexfloating):
        mag2 = rng.uniform(0.5, 1.5, size=shape)
        x = x + 1j * np.where(rng.random(shape) < 0.5, -mag2, mag2)
    return np.asarray(x).astype(dtype)


def reference(subscripts, *operands, **kw):
    """np.einsum in float64 (complex128 where any operand is complex) of the given operands."""
    wide = np.complex128 if any(np.iscomplexobj(np.asarray(x)) for x in operands) else np.float64
    return np.einsum(subscripts, *[np.asarray(x).astype(wide) for x in operands], **kw)


def magnitude(subscripts, *operands, **kw) -> float:
    """max over the result of the sum of |terms|: einsum of the operands' absolute values, in float64."""
    try:
        return float(np.max(np.einsum(subscripts, *[np.abs(np.asarray(x)).astype(np.float64) for x in operands],
                                      **kw), initial=0.0))
    except (ValueError, TypeError):
        return 0.0


def packed_problem(contraction: str, ext: dict[str, int], dtype: str = "f16", order: str = "F"):
    """The ContractionProblem of 'C-A-B' (e.g. 'abc-bda-dc') on packed tensors of `order` (F: first mode
    fastest, TCCG's convention; C: last fastest), beta = 0."""
    from gettpy.plan.problem import ContractionProblem, TensorInfo

    c, a, b = contraction.split("-")

    def info(name, modes):
        seq = modes if order == "F" else modes[::-1]
        st, acc = {}, 1
        for m in seq:
            st[m] = acc
            acc *= ext[m]
        return TensorInfo(name, tuple(modes), tuple(st[m] for m in modes), dtype)
    return ContractionProblem(info("A", a), info("B", b), None, info("D", c), tuple(sorted(ext.items())))
