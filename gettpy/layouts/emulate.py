"""numpy emulation of the GETT layout maps, with the names the CUDA template uses.

`gett_offset` is the map of :mod:`.descriptor` evaluated on a whole array of GEMM coordinates;
`gather_matrix` reads an operand's (b, rows, cols) GEMM view out of its real memory and
`scatter_matrix` writes one into it. The CPU executor is built on these three.
"""
from __future__ import annotations

import numpy as np

from .descriptor import DimMap, OperandLayout


def gett_offset(dm: DimMap, g: np.ndarray) -> np.ndarray:
    """offset(g) = sum_i ((g / divisor_i) % modulus_i) * stride_i, elementwise on int64 `g`."""
    g = np.asarray(g, dtype=np.int64)
    off = np.zeros_like(g)
    for d, m, s in zip(dm.divisors, dm.moduli, dm.strides, strict=True):
        off += ((g // d) % m) * s
    return off


def operand_offsets(layout: OperandLayout, order: tuple[str, ...]) -> np.ndarray:
    """Element offsets of every coordinate, as an array with one axis per GEMM dimension in `order`."""
    off = np.zeros((1,) * len(order), dtype=np.int64)
    for axis, name in enumerate(order):
        dm = layout.dim(name)
        shape = [1] * len(order)
        shape[axis] = dm.extent
        off = off + gett_offset(dm, np.arange(dm.extent, dtype=np.int64)).reshape(shape)
    return off


def flat_memory(arr: np.ndarray) -> tuple[np.ndarray, int]:
    """A 1-D view of the memory `arr` spans, and the position of arr's first element in it.

    Works for views with negative, zero and non-contiguous strides; strides must be whole elements.
    """
    item = arr.itemsize
    lo = hi = 0
    for e, s in zip(arr.shape, arr.strides, strict=True):
        if e == 0:
            return np.empty(0, arr.dtype), 0
        lo += min(0, (e - 1) * s)
        hi += max(0, (e - 1) * s)
    if arr.ndim == 0:
        low_corner = arr.reshape(1)  # a view: indexing a 0-d array would copy
    else:
        low_corner = arr[tuple(slice(e - 1, e) if s < 0 else slice(0, 1)
                               for e, s in zip(arr.shape, arr.strides, strict=True))]
    n = (hi - lo) // item + 1
    flat = np.lib.stride_tricks.as_strided(low_corner, shape=(n,), strides=(item,), writeable=arr.flags.writeable)
    return flat, -lo // item


def gather_matrix(arr: np.ndarray, layout: OperandLayout, order: tuple[str, str, str]) -> np.ndarray:
    """The operand's GEMM view, axes in `order` (e.g. ("b", "m", "k")), read through its layout."""
    flat, origin = flat_memory(arr)
    off = operand_offsets(layout, order)
    if off.size == 0:
        return np.empty(off.shape, arr.dtype)
    return flat[off + origin]


def scatter_matrix(arr: np.ndarray, layout: OperandLayout, order: tuple[str, str, str], values: np.ndarray) -> None:
    """Write `values` (axes in `order`) into `arr`'s memory through its layout."""
    flat, origin = flat_memory(arr)
    off = operand_offsets(layout, order)
    if off.size:
        flat[off + origin] = values
