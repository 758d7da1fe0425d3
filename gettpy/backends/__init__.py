"""Where a contraction runs: numpy arrays on the CPU executor, CuPy arrays on the GETT kernel."""
from __future__ import annotations

import sys

from ..errors import GettpyError
from ..plan.schedule import Schedule
from .staged import run


def array_module_name(x) -> str:
    """'numpy' or 'cupy', from the type of `x`."""
    mod = type(x).__module__.split(".")[0]
    if mod == "cupy":
        return "cupy"
    if mod == "numpy":
        return "numpy"
    raise GettpyError(f"unsupported array type {type(x).__module__}.{type(x).__name__}")


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
