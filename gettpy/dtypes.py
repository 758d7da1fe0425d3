"""The element types gettpy contracts, their short names and their accumulate types.

Short names are what plans, kernel specs and the benchmark use: ``f16``, ``bf16``, ``f32``, ``f64``,
``c64``, ``c128``.
"""
from __future__ import annotations

import numpy as np

from .errors import DtypeError

_BY_NUMPY = {
    np.dtype(np.float16): "f16",
    np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64",
    np.dtype(np.complex64): "c64",
    np.dtype(np.complex128): "c128",
}
ITEMSIZE = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "c64": 8, "c128": 16}
#: accumulate (compute) type per input type: tensor cores accumulate fp16/bf16 in fp32.
ACCUMULATE = {"f16": "f32", "bf16": "f32", "f32": "f32", "f64": "f64", "c64": "c64", "c128": "c128"}
NUMPY_ACCUMULATE = {"f32": np.float32, "f64": np.float64, "c64": np.complex64, "c128": np.complex128}


def short_name(dtype, what: str = "operand") -> str:
    """Short name of a numpy/cupy/torch-like dtype, or a DtypeError naming `what`."""
    if isinstance(dtype, str) and dtype in ITEMSIZE:
        return dtype
    name = getattr(dtype, "name", None) or str(dtype)
    if name in ("bfloat16", "torch.bfloat16"):
        return "bf16"
    try:
        nd = np.dtype(dtype)
    except TypeError:
        raise DtypeError(f"{what}: unsupported dtype {dtype!r}") from None
    if nd.name == "bfloat16":  # ml_dtypes
        return "bf16"
    try:
        return _BY_NUMPY[nd]
    except KeyError:
        raise DtypeError(
            f"{what}: unsupported dtype {nd} (gettpy contracts float16, bfloat16, float32, float64, "
            f"complex64 and complex128; cast integer or boolean tensors first)"
        ) from None


def numpy_dtype(short: str) -> np.dtype:
    """numpy dtype of a short name (bf16 only where ml_dtypes is installed)."""
    if short == "bf16":
        try:
            import ml_dtypes
        except ImportError:  # pragma: no cover - depends on environment
            raise DtypeError("bf16 needs ml_dtypes for numpy arrays; use cupy or torch arrays") from None
        return np.dtype(ml_dtypes.bfloat16)
    return {v: k for k, v in _BY_NUMPY.items()}[short]


def is_complex(short: str) -> bool:
    return short in ("c64", "c128")


#: compute types that are not storage types: the tensor-core modes of float32 inputs (accumulate in
#: float32): "tf32" rounds each input to TF32 (10-bit mantissa), "3xtf32" splits each input into two
#: TF32 parts and adds three products (close to float32 accuracy). Opt-in only.
TF32_MODES = {"tf32": 1, "3xtf32": 3}


def accumulate_type(compute: str) -> str:
    """The short name of the type a compute type accumulates in ("f32" for the TF32 modes)."""
    return "f32" if compute in TF32_MODES else compute


def round_tf32(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to TF32 as the tensor cores' cvt.rna does (nearest, ties away from zero)."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    u = x.view(np.uint32)
    r = np.where(np.isfinite(x), (u + np.uint32(0x1000)) & np.uint32(0xFFFFE000), u).astype(np.uint32)
    return r.view(np.float32)

