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


def operand_offsets(layout: OperandLayout, order: tuple[str, ...], window: tuple[str, int, int] | None = None
                    ) -> np.ndarray:
    """Element offsets of every coordinate, as an array with one axis per GEMM dimension in `order`;
    `window` = (dimension, start, stop) keeps only g in [start, stop) of that dimension."""
    off = np.zeros((1,) * len(order), dtype=np.int64)
    for axis, name in enumerate(order):
        dm = layout.dim(name)
        lo, hi = (window[1], window[2]) if window is not None and window[0] == name else (0, dm.extent)
        shape = [1] * len(order)
        shape[axis] = hi - lo
        off = off + gett_offset(dm, np.arange(lo, hi, dtype=np.int64)).reshape(shape)
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


def gather_matrix(arr: np.ndarray, layout: OperandLayout, order: tuple[str, str, str],
                  window: tuple[str, int, int] | None = None) -> np.ndarray:
    """The operand's GEMM view, axes in `order` (e.g. ("b", "m", "k")), read through its layout (only the
    coordinates of `window`, see `operand_offsets`)."""
    flat, origin = flat_memory(arr)
    off = operand_offsets(layout, order, window)
    if off.size == 0:
        return np.empty(off.shape, arr.dtype)
    off += origin  # (a fresh array: no second one of the offsets' size)
    return flat[off]


def scatter_matrix(arr: np.ndarray, layout: OperandLayout, order: tuple[str, str, str], values: np.ndarray) -> None:
    """Write `values` (axes in `order`) into `arr`'s memory through its layout."""
    flat, origin = flat_memory(arr)
    off = operand_offsets(layout, order)
    if off.size:
        flat[off + origin] = values


def dim_digits(maps: list[DimMap]) -> tuple[int, ...] | None:
    """The mixed-radix place values ("digits") that every map in `maps` (one GEMM dimension, several
    operands) is linear on, fastest first: the sorted divisors d_i and d_i * modulus_i of all their terms.
    Between consecutive place values p < q (q a multiple of p), g's digit (g // p) % (q // p) moves each
    operand's offset by a fixed stride, so the map is a strided view with one axis per digit. None when
    the terms do not nest that way (the caller then gathers through `gett_offset`)."""
    extent = maps[0].extent
    if extent == 0 or any(dm.extent != extent for dm in maps):
        return None
    places = {1, extent}
    for dm in maps:
        for d, m in zip(dm.divisors, dm.moduli, strict=True):
            places.update((d, d * m))
    pts = sorted(places)
    if pts[-1] != extent or any(q % p for p, q in zip(pts, pts[1:], strict=False)):
        return None
    return tuple(pts)


def digit_strides(dm: DimMap, pts: tuple[int, ...]) -> tuple[int, ...]:
    """Element stride of each digit of `pts` (fastest first; len(pts) - 1 digits) in the map `dm`:
    a term (d, m, s) moves by s * p / d on the digit of place value p for d <= p < d * m, 0 elsewhere."""
    out = [0] * (len(pts) - 1)
    for d, m, s in zip(dm.divisors, dm.moduli, dm.strides, strict=True):
        for i in range(pts.index(d), pts.index(d * m)):
            out[i] += s * (pts[i] // d)
    return tuple(out)


def strided_view(arr: np.ndarray, shape: tuple[int, ...], strides: tuple[int, ...]) -> np.ndarray:
    """A view of `arr`'s memory with these element strides from its first element (no copy; writeable as
    `arr` is). Every offset it reaches must lie in the memory `arr` spans (the layout maps' do)."""
    flat, origin = flat_memory(arr)
    return np.lib.stride_tricks.as_strided(flat[origin:], shape=shape, strides=tuple(s * arr.itemsize for s in strides),
                                           writeable=arr.flags.writeable)
