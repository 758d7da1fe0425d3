"""The float64 (complex128) reference a benchmark result is checked against, whole or on a sampled block.

A contraction whose float64 copies or flops are too large to recompute whole (`needs_sampling`) is checked
on a block of its output: per output mode a sorted random subset of indices (always with the first and the
last, where the tiles' edges are), every contracted mode whole. The reference of that block is the einsum
of the inputs restricted to the same indices, which is exact: a contraction does not mix output positions.

Everything here takes numpy or CuPy arrays (the module of the array decides), so the CPU tests check it.
"""
from __future__ import annotations

import math

import numpy as np

from . import report


def _xp(x):
    """numpy or cupy, whichever `x` belongs to."""
    if type(x).__module__.split(".")[0] == "cupy":
        import cupy

        return cupy
    return np


def needs_sampling(case, max_elems: int, max_flops: float) -> bool:
    """Whether the reference of `case` is to be computed on a sampled output block: more than `max_elems` float64
    elements in A, B and C together, or more than `max_flops` flops."""
    return sum(case.sizes()) > max_elems or case.flops() > max_flops


def sample_index(case, max_out: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Per output mode of `case`, sorted distinct indices (first and last included) such that the block they span
    has at most `max_out` elements (at least one index per mode)."""
    out_modes = case.modes[2]
    counts = {m: case.extents[m] for m in out_modes}
    while math.prod(counts.values()) > max_out:
        m = max(counts, key=lambda x: (counts[x], x))
        if counts[m] == 1:
            break
        counts[m] = max(1, counts[m] // 2)
    index = {}
    for m in out_modes:
        e, n = case.extents[m], counts[m]
        if n >= e:
            index[m] = np.arange(e)
            continue
        ends = [0, e - 1] if n >= 2 else [e - 1]
        inner = rng.choice(np.arange(1, e - 1), size=n - len(ends), replace=False) if n > len(ends) else []
        index[m] = np.sort(np.concatenate([np.asarray(ends), np.asarray(inner, dtype=np.int64)])).astype(np.int64)
    return index


def take(x, modes: str, index: dict[str, np.ndarray] | None):
    """`x` (modes `modes`) restricted to `index` along each of its modes named there (numpy, cupy or torch)."""
    if not index:
        return x
    if type(x).__module__.split(".")[0] == "torch":
        import torch

        for axis, m in enumerate(modes):
            if m in index:
                x = x.index_select(axis, torch.as_tensor(index[m], device=x.device))
        return x
    xp = _xp(x)
    for axis, m in enumerate(modes):
        if m in index:
            x = xp.take(x, xp.asarray(index[m]), axis=axis)
    return x


def widen(x, complex_: bool):
    """A float64 (complex128) numpy or cupy copy of `x` (numpy, cupy, or torch: torch goes through cupy)."""
    if type(x).__module__.split(".")[0] == "torch":
        import cupy
        import torch

        t = x.detach()
        x = cupy.from_dlpack(t.to(torch.complex128 if t.is_complex() else torch.float64).contiguous())
    return x.astype(np.complex128 if complex_ else np.float64)


class Reference:
    """The reference of one contraction C = op(op(A) op(B)) on given inputs, whole or on a sampled block.

    Attributes:
        index: the sampled output indices per mode, or None when the whole output is compared.
        ref: the reference values (float64 or complex128; the block where `index` is set).
    """

    def __init__(self, case, a, b, op_fn, complex_: bool, index: dict[str, np.ndarray] | None = None):
        """Args:
            case: the contraction (suite.Case).
            a, b: its inputs (numpy, cupy or torch).
            op_fn: the op applied to A, B and the result, on a wide array (identity: ``lambda x: x``).
            complex_: whether the contraction is complex (complex128 reference).
            index: output indices to restrict the reference to (`sample_index`), or None for all of it.
        """
        ma, mb, _ = case.modes
        self.modes_c = case.modes[2]
        self.index = index
        self.complex_ = complex_
        wa = widen(take(a, ma, index), complex_)
        wb = widen(take(b, mb, index), complex_)
        xp = _xp(wa)
        self.ref = op_fn(xp.einsum(case.einsum_subscripts(), op_fn(wa), op_fn(wb)))

    def err(self, result) -> float:
        """max|result - ref| / max|ref| over the compared block."""
        got = widen(take(result, self.modes_c, self.index), self.complex_)
        return report.max_rel_err(got, self.ref)

    @property
    def note(self) -> str:
        if self.index is None:
            return ""
        n = math.prod(len(v) for v in self.index.values())
        return f"verified on a sampled {n}-element block of the output (every contracted mode whole)"
