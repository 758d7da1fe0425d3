"""Padding helpers: `pad(x, multiples)` and `unpad(y, shape)`, one fused copy kernel each.

For users who keep tensors padded through a chain of contractions (the GETT kernel itself needs no
padding). On CuPy arrays, each kernel is specialised on the extents and strides (compile-time constants),
copies raw element bits (so any 2/4/8/16-byte dtype works, bf16 held as uint16 included), and reads the
source through its real strides (views welcome). numpy arrays (and anything numpy.asarray takes) are
padded on the CPU with the same meaning. Results are new C-contiguous arrays of the input's library.
"""
from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import ArgumentError, KernelError, ShapeError
from .build import load_source

_RAW = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long", 16: "uint4"}
_FUNCS: dict = {}

_SRC = r"""
// gettpy pad/unpad: dst[i] (C-contiguous, extents DST) = coords inside SRC extents ? src[sum c_j * stride_j] : 0
extern "C" __global__ void {name}(const {T}* __restrict__ src, {T}* __restrict__ dst) {{
  const {I} total = {total};
  for ({I} i = {I}(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += {I}(gridDim.x) * blockDim.x) {{
    {I} r = i, off = 0;
    bool in = true;
{body}
    {T} v;
    if (in) v = src[off]; else {{ {zero} }}
    dst[i] = v;
  }}
}}
"""


#: threads of a block, and the most blocks of the grid-stride loop
THREADS, MAX_BLOCKS = 256, 65535 * 8


def _blocks(total: int) -> int:
    return min(-(-total // THREADS), MAX_BLOCKS)


def source(src_shape, src_strides, dst_shape, itemsize: int, name: str = "gett_pad") -> str:
    """The copy kernel's CUDA source: `dst_shape` (C order) from a source of `src_shape` and element strides
    `src_strides`, zeros outside it. Indices are 64-bit wherever a 32-bit one could pass 2^31 - 1: a source offset,
    the total, or a thread's last index plus the grid's stride (the loop's step past the end)."""
    if itemsize not in _RAW:
        raise KernelError(f"pad: itemsize {itemsize} not supported")
    total = math.prod(dst_shape)
    span = sum(abs(s) * max(e - 1, 0) for e, s in zip(src_shape, src_strides, strict=True))
    big = total + _blocks(total) * THREADS >= 2**31 - 1 or span >= 2**31 - 1
    idx = "long long" if big else "int"
    body = []
    for j in reversed(range(len(dst_shape))):  # last dimension fastest (C order)
        e = dst_shape[j]
        body.append(f"    {{ const {idx} c = r % {e}; r /= {e};")
        if src_shape[j] < e:
            body.append(f"      in = in && c < {src_shape[j]};")
        body.append(f"      off += c * {idx}({src_strides[j]}); }}")
    t = _RAW[itemsize]
    zero = "v = make_uint4(0, 0, 0, 0);" if itemsize == 16 else "v = 0;"
    return _SRC.format(name=name, T=t, I=idx, total=total, body="\n".join(body), zero=zero)


def _kernel(src_shape, src_strides, dst_shape, itemsize):
    import cupy

    key = (tuple(src_shape), tuple(src_strides), tuple(dst_shape), itemsize, cupy.cuda.Device().id)
    f = _FUNCS.get(key)
    if f is not None:
        return f
    name = f"gett_pad_{abs(hash(key)) % 10**12}"
    f = _FUNCS[key] = load_source(source(src_shape, src_strides, dst_shape, itemsize, name), name)
    return f


def _on_gpu(x) -> bool:
    return type(x).__module__.split(".")[0] == "cupy"


def _host(x) -> np.ndarray:
    """A host array of `x`: numpy's view of it, through DLPack for an object that speaks only that (numpy would
    wrap it in a 0-d object array)."""
    if not hasattr(x, "__array__") and not hasattr(x, "shape") and hasattr(x, "__dlpack__"):
        return np.from_dlpack(x)
    return np.asarray(x)


def _counts(v):
    """An int, or a tuple of the values of a sequence or iterator (read once), for `pad` and `unpad`."""
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v.item()
    if isinstance(v, int | np.integer) and not isinstance(v, bool | np.bool_):
        return int(v)
    try:
        return tuple(v)
    except TypeError:
        return v


def _copy_cpu(x: np.ndarray, dst_shape) -> np.ndarray:
    out = np.zeros(dst_shape, dtype=x.dtype)
    out[tuple(slice(0, e) for e in x.shape)] = x
    return out


def _copy(x, dst_shape):
    if not _on_gpu(x):
        return _copy_cpu(x, dst_shape)
    import cupy

    if any(s % x.itemsize for s in x.strides):
        raise ShapeError(f"pad: strides {x.strides} are not whole elements")
    out = cupy.empty(dst_shape, dtype=x.dtype)
    total = out.size
    if total == 0:
        return out
    f = _kernel(x.shape, tuple(s // x.itemsize for s in x.strides), dst_shape, x.itemsize)
    f((_blocks(total),), (THREADS,), (x, out))
    return out


def pad(x: Any, multiples: int | Sequence[int]) -> Any:
    """A zero-padded C-contiguous copy of `x` whose extents are rounded up to `multiples` (int or per axis)."""
    if not _on_gpu(x):
        x = _host(x)
    multiples = _counts(multiples)
    if isinstance(multiples, int):
        multiples = (multiples,) * x.ndim
    try:
        if any(isinstance(m, bool | np.bool_) for m in multiples):
            raise TypeError  # (True is not a multiple: numpy refuses bools as sizes too)
        multiples = tuple(operator.index(m) for m in multiples)
    except TypeError:
        raise ArgumentError(f"pad: multiples {multiples!r} must be an integer or a sequence of integers, one per "
                            f"axis of shape {x.shape}") from None
    if len(multiples) != x.ndim or any(m < 1 for m in multiples):
        raise ShapeError(f"pad: multiples {multiples} must be positive, one per axis of shape {x.shape}")
    shape = tuple(-(-e // int(m)) * int(m) for e, m in zip(x.shape, multiples, strict=True))
    return _copy(x, shape)


def unpad(y: Any, shape: Sequence[int]) -> Any:
    """A C-contiguous copy of the leading `shape` corner of `y` (inverse of `pad`)."""
    if not _on_gpu(y):
        y = _host(y)
    shape = _counts(shape)
    try:
        if any(isinstance(e, bool | np.bool_) for e in shape):
            raise TypeError
        shape = tuple(operator.index(e) for e in shape)
    except TypeError:
        raise ArgumentError(f"unpad: shape {shape!r} must be a sequence of integers, one per axis of "
                            f"{y.shape}") from None
    if len(shape) != y.ndim or any(e < 0 or e > f for e, f in zip(shape, y.shape, strict=True)):
        raise ShapeError(f"unpad: shape {shape} does not fit inside {y.shape}")
    return _copy(y[tuple(slice(0, e) for e in shape)], shape)
