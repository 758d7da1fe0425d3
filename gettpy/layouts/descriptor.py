"""GETT layout descriptors: per operand and GEMM dimension, (divisor, modulus, stride) tuples.

The index map, written once (the CUDA template's ``gett_offset`` and :func:`..emulate.gett_offset`
mirror it term by term)::

    offset(g) = sum_i ((g / divisor_i) % modulus_i) * stride_i        (integer division, elements)

A GEMM dimension (m, n, k or the batch b) is an ordered list of tensor modes, the first one fastest.
Mode i contributes divisor_i = product of the extents before it, modulus_i = its extent and
stride_i = its element stride in this operand (negative, or 0 for a broadcast operand, allowed).
Modes of extent 1 or stride 0 contribute nothing and are dropped; consecutive modes that are contiguous in this
operand (stride_{i+1} == stride_i * extent_i) are merged into one term, so a C-contiguous matrix has
one term per dimension. Every operand gets its own map of the same GEMM coordinate: A's map of m may
merge modes that C's map of m keeps apart.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import LayoutError

VECTOR_BYTES = 16


@dataclass(frozen=True, slots=True)
class DimMap:
    """The map of one GEMM dimension (extent `extent`) into one operand's memory."""

    extent: int
    divisors: tuple[int, ...] = ()
    moduli: tuple[int, ...] = ()
    strides: tuple[int, ...] = ()

    def __post_init__(self):
        if not (len(self.divisors) == len(self.moduli) == len(self.strides)):
            raise LayoutError(f"DimMap: divisors {self.divisors}, moduli {self.moduli} and strides "
                              f"{self.strides} must have one entry per term")
        if self.extent < 0 or any(d < 1 for d in self.divisors) or any(m < 1 for m in self.moduli):
            raise LayoutError(f"DimMap: extent {self.extent}, divisors {self.divisors} and moduli "
                              f"{self.moduli} must be positive")

    @property
    def unit_run(self) -> int:
        """How many consecutive g, starting at a multiple of the run, land on consecutive elements.

        1 when the fastest term is not stride-1 (or there is no term: a broadcast dimension reads one
        element for every g, which is a run of its own kind, see `is_broadcast`).
        """
        if self.strides and self.divisors[0] == 1 and self.strides[0] == 1:
            return self.moduli[0]
        return 1

    @property
    def is_broadcast(self) -> bool:
        """True when every g maps to offset 0 (no terms left)."""
        return not self.strides

    def span(self) -> tuple[int, int]:
        """(lowest, highest) offset over all g in [0, extent)."""
        lo = hi = 0
        if self.extent == 0:
            return 0, 0
        for d, m, s in zip(self.divisors, self.moduli, self.strides, strict=True):
            top = min(m - 1, (self.extent - 1) // d) * s
            lo, hi = lo + min(0, top), hi + max(0, top)
        return lo, hi


def build_dim_map(extents: tuple[int, ...], strides: tuple[int, ...]) -> DimMap:
    """DimMap of a GEMM dimension made of modes with these extents (fastest first) and strides.

    >>> build_dim_map((4, 3), (1, 4))          # two contiguous modes merge into one term
    DimMap(extent=12, divisors=(1,), moduli=(12,), strides=(1,))
    >>> build_dim_map((4, 3), (3, 1))
    DimMap(extent=12, divisors=(1, 4), moduli=(4, 3), strides=(3, 1))
    """
    total = 1
    for e in extents:
        total *= e
    if total == 0:
        return DimMap(0)  # an empty dimension: nothing is ever read or written through it
    divs: list[int] = []
    mods: list[int] = []
    strs: list[int] = []
    d = 1
    for e, s in zip(extents, strides, strict=True):
        if e != 1 and s != 0:  # extent-1 and broadcast (stride-0) modes add nothing to the offset
            if mods and strs[-1] * mods[-1] == s and divs[-1] * mods[-1] == d:
                mods[-1] *= e  # contiguous with the previous term (no term skipped between): merge
            else:
                divs.append(d)
                mods.append(e)
                strs.append(s)
        d *= e
    return DimMap(total, tuple(divs), tuple(mods), tuple(strs))


@dataclass(frozen=True, slots=True)
class OperandLayout:
    """One operand's maps of its GEMM dimensions, e.g. A: ("m", "k", "b").

    Attributes:
        name: "A", "B", "C" (read) or "D" (written).
        dims: (dimension name, DimMap) pairs.
        itemsize: bytes per element.
        base_align: alignment in bytes of the data pointer, capped at 16.
    """

    name: str
    dims: tuple[tuple[str, DimMap], ...]
    itemsize: int
    base_align: int = VECTOR_BYTES

    def dim(self, which: str) -> DimMap:
        for n, dm in self.dims:
            if n == which:
                return dm
        raise LayoutError(f"operand {self.name} has no GEMM dimension {which!r}")

    def all_strides(self) -> tuple[int, ...]:
        return tuple(s for _, dm in self.dims for s in dm.strides)

    def vector_width(self, which: str) -> int:
        """Elements per 16-byte (or narrower) vector access along GEMM dimension `which`.

        A vector of v elements starting at g = v*j is one aligned access when the dimension's stride-1
        run is a multiple of v, every other stride of the operand is a multiple of v (so every vector
        start stays aligned) and the data pointer is aligned to v elements.
        """
        dm = self.dim(which)
        run = dm.unit_run
        if run <= 1:
            return 1
        others = [s for n, d in self.dims for i, s in enumerate(d.strides) if not (n == which and i == 0)]
        v = VECTOR_BYTES // self.itemsize
        while v > 1:
            if run % v == 0 and all(s % v == 0 for s in others) and self.base_align % (v * self.itemsize) == 0:
                return v
            v //= 2
        return 1

    def vector_access(self, which: str, tile: int | None = None) -> tuple[int, int]:
        """(v, vs): the widest vector access along GEMM dimension `which`, through any stride-1 term.

        A stride-1 term with divisor vs puts g, g + vs, ..., g + (v-1)*vs on consecutive elements when
        g's digit of that term is a multiple of v (v divides the term's modulus): the kernel's loader
        copies those v elements as one vector into consecutive shared-memory slots (a tile that is 2-D
        over two modes, seed 004's interleaved GEMM index). vs == 1 is `vector_width`'s leading term.
        Every other stride must be a multiple of v and the pointer aligned to v elements; with `tile`
        given, the groups of vs * v coordinates must tile it (tile % (vs * v) == 0). Prefers the wider
        v, then the smaller vs; (1, 1) when no term allows a vector.
        """
        dm = self.dim(which)
        best = (1, 1)
        for i, (d, m, s) in enumerate(zip(dm.divisors, dm.moduli, dm.strides, strict=True)):
            if s != 1 or m <= 1:
                continue
            others = [st for n, x in self.dims for j, st in enumerate(x.strides) if not (n == which and j == i)]
            v = VECTOR_BYTES // self.itemsize
            while v > 1:
                fits = tile is None or tile % (d * v) == 0
                if (m % v == 0 and fits and all(st % v == 0 for st in others)
                        and self.base_align % (v * self.itemsize) == 0):
                    break
                v //= 2
            if v > best[0] or (v == best[0] and v > 1 and d < best[1]):
                best = (v, d)
        return best

    def span(self) -> tuple[int, int]:
        """(lowest, highest) element offset this operand touches."""
        lo = hi = 0
        for _, dm in self.dims:
            a, b = dm.span()
            lo, hi = lo + a, hi + b
        return lo, hi

    @property
    def needs_64bit(self) -> bool:
        lo, hi = self.span()
        return max(-lo, hi) >= 2**31 - 1


def build_operand_layout(name: str, groups: dict[str, tuple[str, ...]], extents: dict[str, int],
                         strides: dict[str, int], itemsize: int, base_align: int = VECTOR_BYTES) -> OperandLayout:
    """Layout of one operand: `groups` maps each GEMM dimension to its ordered modes.

    A mode of the group that the operand does not have gets stride 0 (the operand is broadcast along it).
    """
    dims = []
    for dim, modes in groups.items():
        ex = tuple(extents[m] for m in modes)
        st = tuple(strides.get(m, 0) for m in modes)
        dims.append((dim, build_dim_map(ex, st)))
    return OperandLayout(name, tuple(dims), itemsize, min(base_align, VECTOR_BYTES))


def merge_axes(extents, strides) -> tuple[tuple[int, ...], list[tuple[int, ...]]]:
    """Axes of several tensors' common index space (fastest first), each pair of neighbours merged where every
    tensor steps through it as through one axis (the slower one's stride is the faster one's times its extent, in
    each tensor); extent-1 axes dropped. `strides`: one tuple per tensor. Returns (extents, one tuple per tensor).

    >>> merge_axes((4, 3, 5), [(1, 4, 100), (3, 12, 36)])
    ((12, 5), [(1, 100), (3, 36)])
    """
    out_e: list[int] = []
    out_s: list[list[int]] = [[] for _ in strides]
    for i, e in enumerate(extents):
        if e == 1:
            continue
        if out_e and all(st[i] == o[-1] * out_e[-1] for st, o in zip(strides, out_s, strict=True)):
            out_e[-1] *= e
            continue
        out_e.append(e)
        for st, o in zip(strides, out_s, strict=True):
            o.append(st[i])
    return tuple(out_e), [tuple(o) for o in out_s]


def self_overlapping(extents, strides) -> bool:
    """Whether distinct elements of a tensor with these extents and element strides may share memory (a stride 0
    or overlapping strides); never for a tensor of no elements. Conservative: each stride (smallest first) must
    pass the furthest offset of the faster ones, so interleaved strides that happen not to collide (extents 3, 2
    at strides 2, 3) count as overlapping."""
    if 0 in extents:
        return False
    dims = sorted((abs(s), e) for e, s in zip(extents, strides, strict=True) if e > 1)
    reach = 0  # the largest offset the faster dimensions reach; a stride beyond it cannot collide
    for s, e in dims:
        if s <= reach:
            return True
        reach += s * (e - 1)
    return False


def pointer_alignment(address: int) -> int:
    """Largest power of two (capped at 16) dividing a byte address."""
    a = VECTOR_BYTES
    while a > 1 and address % a:
        a //= 2
    return a
