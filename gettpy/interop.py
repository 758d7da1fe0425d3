"""Arrays from other libraries: torch (and anything with DLPack or __cuda_array_interface__) in,
the caller's type out, zero-copy.

numpy and CuPy arrays pass through. A CPU torch tensor becomes a numpy view (CPU executor); a CUDA
torch tensor, or any object with ``__cuda_array_interface__``/``__dlpack__`` on the GPU, becomes a
CuPy view. `wrap` turns a result back into the type of the first operand, and `caller_stream` makes
the work run on torch's current stream when the operands are torch's.
"""
from __future__ import annotations

import contextlib
import warnings

import numpy as np


def _module(x) -> str:
    return type(x).__module__.split(".")[0]


def to_native(x):
    """A numpy or CuPy view of `x` (no copy where the library allows it)."""
    mod = _module(x)
    if mod in ("numpy", "cupy"):
        return x
    if mod == "torch":
        if x.device.type == "cpu":
            return x.detach().numpy()
        import cupy
        return cupy.from_dlpack(x.detach())
    if hasattr(x, "__cuda_array_interface__"):
        import cupy
        return cupy.asarray(x)
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        dev_type, _ = x.__dlpack_device__()
        if dev_type == 1:  # kDLCPU
            return np.from_dlpack(x)
        import cupy
        return cupy.from_dlpack(x)
    return np.asarray(x)


def wrapper_for(first):
    """A function turning a numpy/CuPy result back into `first`'s array type."""
    if _module(first) == "torch":
        import torch

        def back(r):
            return torch.from_dlpack(r) if _module(r) == "cupy" else torch.from_numpy(r)
        return back
    return lambda r: r


def caller_stream(first):
    """A context in which CuPy work runs on the caller's stream: torch's current CUDA stream when the
    first operand is a CUDA torch tensor, else CuPy's own current stream (a no-op context)."""
    if _module(first) == "torch" and first.device.type == "cuda":
        import cupy
        import torch

        ts = torch.cuda.current_stream(first.device)
        if hasattr(cupy.cuda.Stream, "from_external") and hasattr(ts, "__cuda_stream__"):
            return cupy.cuda.Stream.from_external(ts)  # the CUDA stream protocol (CuPy >= 14)
        with warnings.catch_warnings():  # CuPy 14 deprecates ExternalStream for from_external
            warnings.simplefilter("ignore", DeprecationWarning)
            return cupy.cuda.ExternalStream(ts.cuda_stream, first.device.index)
    return contextlib.nullcontext()
