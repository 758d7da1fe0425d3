"""Where a contraction runs: numpy arrays on the CPU executor, CuPy arrays on the GETT kernel."""
from __future__ import annotations

import sys

from ..dtypes import NUMPY_ACCUMULATE, accumulate_type
from ..errors import DtypeError
from ..plan.schedule import Schedule
from .staged import _view, run


def array_module_name(x) -> str:
    """'numpy' or 'cupy', from the type of `x`."""
    mod = type(x).__module__.split(".")[0]
    if mod == "cupy":
        return "cupy"
    if mod == "numpy":
        return "numpy"
    raise DtypeError(f"unsupported array type {type(x).__module__}.{type(x).__name__} (numpy or CuPy arrays)")


def xp_of(name: str):
    if name == "cupy":
        import cupy
        return cupy
    import numpy
    return numpy


def data_ptr(x) -> int:
    """Address of the element of index 0 (numpy or cupy)."""
    if "cupy" in sys.modules and type(x).__module__.startswith("cupy"):
        return int(x.data.ptr)
    return int(x.ctypes.data)


_GPU: list = []  # the gpu module, imported on first use (it is not importable without CuPy's runtime)


def execute(name: str, schedule, a, b, c, d, alpha, beta, stream=None) -> None:
    """Run a Schedule (or a bare Plan) on the backend that owns the arrays."""
    if name == "cupy" and isinstance(schedule, Schedule) and not schedule.staged:  # the common case, fast
        if not _GPU:
            from . import gpu as _g
            _GPU.append(_g)
        _GPU[0].execute(schedule.core, a, b, c, d, alpha, beta, stream=stream)
        return
    if name == "cupy":
        import cupy

        from . import gpu

        def core(plan, a, b, c, d, alpha, beta):
            gpu.execute(plan, a, b, c, d, alpha, beta, stream=stream)
        xp = cupy
    else:
        import numpy as xp

        from .cpu import execute as core
    if not isinstance(schedule, Schedule):
        core(schedule, a, b, c, d, alpha, beta)
    elif stream is not None and name == "cupy":
        with stream:
            run(schedule, xp, core, a, b, c, d, alpha, beta)
    else:
        run(schedule, xp, core, a, b, c, d, alpha, beta)


def execute_without_ab(name: str, schedule, c, d, beta, stream=None) -> None:
    """D = op_d(beta op_c(C)) (op_d(0) without C): the contraction with alpha == 0, which reads neither A nor
    B (as BLAS and cuTENSOR: an inf or NaN in them cannot reach D), on either backend.

    Computed in the schedule's compute type with the ops' numpy twins (CuPy dispatches numpy's functions on
    its arrays) and cast into D through its own strides.
    """
    p = schedule.problem  # (a Schedule or a bare Plan: both carry the problem)
    xp = xp_of(name)
    ext = dict(p.extents)
    acc = NUMPY_ACCUMULATE[accumulate_type(p.compute)]
    if stream is not None and name == "cupy":
        with stream:
            _without_ab(xp, p, c, d, beta, ext, acc)
    else:
        _without_ab(xp, p, c, d, beta, ext, acc)


def execute_sum(name: str, schedule, a, d) -> None:
    """D = op_d(the sum of op_a(A) over the modes D lacks): a one-operand contraction summed as numpy sums it,
    without the product by a 0-d one that a binary contraction takes. The product is exact for real types, but a
    complex one is not the identity on inf and NaN: (inf + 1i)(1 + 0i) = inf + nan i, where numpy's sum gives
    inf + 1i. Computed in the schedule's compute type with the ops' numpy twins and cast into D through its own
    strides, on either backend (CuPy dispatches numpy's functions on its arrays)."""
    p = schedule.problem
    xp = xp_of(name)
    ext = dict(p.extents)
    acc = NUMPY_ACCUMULATE[accumulate_type(p.compute)]
    kept = tuple(p.d.modes)
    summed = tuple(m for m in p.a.modes if m not in kept and m in ext)
    av = xp.asarray(p.a.op.on_input(_view(xp, a, p.a, tuple(reversed(kept + summed)), ext), acc), dtype=acc)
    r = av.sum(axis=tuple(range(len(kept), len(kept) + len(summed))), dtype=acc) if summed else av
    r = xp.asarray(p.d.op(r))
    dv = _view(xp, d, p.d, tuple(reversed(kept)), ext)
    dv[...] = r.real if r.dtype.kind == "c" and dv.dtype.kind != "c" else r


def _without_ab(xp, p, c, d, beta, ext, acc) -> None:
    dv = _view(xp, d, p.d, p.d.modes, ext)
    if c is not None and beta != 0 and p.c is not None:
        cv = _view(xp, c, p.c, p.d.modes, ext).astype(acc)
        r = xp.asarray(p.c.op(cv), dtype=acc) * acc(beta)
    else:
        r = xp.zeros(dv.shape, dtype=acc)
    r = xp.asarray(p.d.op(r))
    dv[...] = r.real if r.dtype.kind == "c" and dv.dtype.kind != "c" else r
