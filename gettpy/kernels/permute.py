"""The schedule's packs on the GPU: a strided N-d copy into a dense tensor, tiled through shared memory.

A pack copies a strided view (slowest axis first) into a fresh C-ordered array. When the view's
fastest-moving source axis is not the destination's last axis, an elementwise copy reads or writes
one element per sector (measured on the H100: CuPy's elementwise copy packed a 60 MB permuted f16
operand at 0.44 TB/s). This kernel moves tiles over the two fast axes instead: threads read along the source's
fast axis, exchange through shared memory, and write along the destination's, so both sides move
whole sectors. The remaining axes enumerate the tiles' bases (extents and strides are compiled in,
so the index arithmetic divides by constants).

Each side moves vectors of up to 16 bytes where the extents and strides allow it (`PermutePlan.wr`,
`.ww`), the tile edges are sized to the extents (`tile_edge`: 72 -> one tile of 72, not 32 + 32 + 8), and
a block reads several tiles before writing them (`PermutePlan.group`), so a thread keeps a few loads in
flight.
Measured on the H100 before both (32 x 32 tiles of scalars): a 72^4 f16 permutation at 1.12 TB/s
against 2.66 for a contiguous copy of the same bytes: 32 x 32
tiles of 2-byte elements moved 64 bytes per warp instruction and left the third tile along 72 a quarter
full.

`plan_permute` (pure) decides the axes, tiles and vectors; `permute_source` renders the kernel;
`permute_copy` runs it on a CuPy view. The copy moves bits (1-, 2-, 4- or 8-byte elements), so it serves
every dtype; a pack that pre-applies an input's unary op (float16, float32, float64) computes it on the
way, in the GETT kernel's compute type.
"""
from __future__ import annotations

import functools
import hashlib
import math
from dataclasses import dataclass, replace

from .realign import PICK, aligned_words_load

#: threads per block
THREADS = 256
#: bytes of the longest tile edge (at most EDGE_MAX elements): 2-byte elements get edges of up to 128
EDGE_BYTES = 256
EDGE_MAX = 128
#: bytes of one vector load or store at most
VBYTES = 16
#: vectors a thread moves per block at most (where tiles are grouped), and the block's shared memory
LOADS = 4
SMEM = 24 * 1024
#: blocks a grouped copy keeps at least (a few waves of the H100's 132 SMs; the ccsd_t packs of 0.4 MB
#: were 32 blocks of 12 tiles each before this bound)
MIN_BLOCKS = 512
#: two packs that together move at most this many bytes run as one launch (`permute_copy_pair`)
PAIR_BYTES = 8 << 20
#: realigned word reads (`PermutePlan.shift`) for elements narrower than this many bytes
SHIFT_BELOW = 4
_BITS = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long"}
_RAW = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "uint2", 16: "uint4"}


def edge_limit(itemsize: int) -> int:
    """The longest tile edge (elements) for `itemsize`-byte elements."""
    return min(EDGE_MAX, EDGE_BYTES // itemsize)


def tile_edge(extent: int, vec: int, itemsize: int) -> int:
    """The tile edge along an axis of `extent` moved in vectors of `vec` elements: the extent cut into
    the fewest pieces of at most `edge_limit` elements, each rounded up to whole vectors, so that the
    last tile is about as full as the others (72 -> one tile of 72, not 64 + 8)."""
    pieces = math.ceil(extent / edge_limit(itemsize))
    return -(-math.ceil(extent / pieces) // vec) * vec


def _pitch(edge: int, itemsize: int) -> int:
    """Shared-memory row pitch (elements) of a tile row `edge` long: an odd number of 4-byte words (of
    8-byte pairs for 8-byte elements), so that a column read by consecutive threads spreads over the banks."""
    p = edge + 1
    if itemsize <= 4:
        while (p * itemsize) % 8 != 4:
            p += 1
    else:
        p += 1 - p % 2
    return p


@dataclass(frozen=True, slots=True)
class PermutePlan:
    """How a view of `shape` (slowest axis first) with source `strides` (elements) is copied densely.

    Attributes:
        shape, strides: the view. dst_strides: the dense destination's strides (C order).
        i: the source's fast axis (smallest stride), read along by consecutive threads.
        o: the destination's fast axis (the last), written along by consecutive threads.
        rest: the other axes, slowest first: one block per (rest coordinate, tile of i, tile of o).
        itemsize: bytes per element.
        wr, ww: elements per vector read along i / written along o (1: scalars).
        ti, to: tile edges (elements) along i and o.
        group: tiles per block, at consecutive coordinates of the fastest rest axis (all read before
            any is written, so that a thread has several loads in flight).
        shift: the reads along i are realigned 16-byte words (i of stride 1, but rows that start off a
            vector boundary: the aligned words holding each vector's bytes, funnel-shifted into place).
        po: the destination's extent along o (>= shape[o]); past shape[o] it is written with zeros (a
            zero-filled margin that makes every destination row whole 16-byte vectors).
    """

    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dst_strides: tuple[int, ...]
    i: int
    o: int
    rest: tuple[int, ...]
    itemsize: int = 4
    wr: int = 1
    ww: int = 1
    ti: int = 32
    to: int = 32
    group: int = 1
    shift: bool = False
    po: int = 0

    def __post_init__(self):
        if self.ti % self.wr or self.to % self.ww:
            raise ValueError(f"PermutePlan: tile {self.ti} x {self.to} is not whole vectors of {self.wr} x {self.ww}")
        if self.shift and (self.strides[self.i] != 1 or self.wr * self.itemsize != VBYTES):
            raise ValueError("PermutePlan: realigned reads need a read axis of stride 1 and 16-byte vectors")
        if not self.po:
            object.__setattr__(self, "po", self.shape[self.o])
        if self.po < self.shape[self.o] or self.po % self.ww:
            raise ValueError(f"PermutePlan: destination extent {self.po} along o is below {self.shape[self.o]} "
                             f"or not whole vectors of {self.ww}")

    @property
    def tiles(self) -> tuple[int, int]:
        """Tiles along i and along o (o over the destination's extent, margin included)."""
        return math.ceil(self.shape[self.i] / self.ti), math.ceil(self.po / self.to)

    @property
    def blocks(self) -> int:
        rest = [self.shape[a] for a in self.rest]
        if rest:
            rest[-1] = math.ceil(rest[-1] / self.group)
        return math.prod(self.tiles) * math.prod(rest)

    @property
    def vectors(self) -> tuple[int, int]:
        """Vectors of one tile, read side and write side."""
        return self.ti // self.wr * self.to, self.to // self.ww * self.ti

    @property
    def smem_bytes(self) -> int:
        return self.group * self.to * _pitch(self.ti, self.itemsize) * self.itemsize


def _vector(itemsize: int, extent: int, ok) -> int:
    """The widest vector (elements, at most VBYTES) that divides `extent` and passes `ok(width)`."""
    w = max(1, VBYTES // itemsize)
    while w > 1 and (extent % w or not ok(w)):
        w //= 2
    return w


def _fast_axes(shape: tuple[int, ...], strides: tuple[int, ...], who: str):
    """(live axes, the source's fast axis, the destination's) of a view, or None when it is empty or has
    fewer than two axes of extent > 1 (a plain copy is coalesced then)."""
    if len(shape) != len(strides):
        raise ValueError(f"{who}: shape {shape} and strides {strides} differ in length")
    live = [a for a, e in enumerate(shape) if e > 1]
    if any(e <= 0 for e in shape) or len(live) < 2:
        return None
    return live, min(live, key=lambda a: (abs(strides[a]), -a)), live[-1]


def _read_vector(shape, strides, live, axis: int, itemsize: int, base_align: int) -> int:
    """Elements per vector read along `axis`: it needs stride 1 there, every other live stride and the
    first element's address whole vectors."""
    return _vector(itemsize, shape[axis], lambda w: strides[axis] == 1 and base_align % (w * itemsize) == 0
                   and all(strides[a] % w == 0 for a in live if a != axis))


def plan_permute(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int = 4,
                 base_align: int = VBYTES, pad: int = 0) -> PermutePlan | None:
    """The tiled copy of a view, or None where an elementwise copy is already coalesced on both sides
    (the source's fastest axis is the destination's, or fewer than two axes have extent > 1), or where
    `pad` asks for a margin along an axis that is not the destination's fast one.

    itemsize: bytes per element; base_align: the alignment (bytes) of the view's first element, which
    bounds the aligned read vectors; pad: the destination's extent along the view's last axis, zero-filled
    past the view's (0: none). Where aligned vectors along the read axis would be narrower than 16 bytes
    although that axis has stride 1 (the other strides or the base are not whole vectors: rows of odd
    length), elements narrower than SHIFT_BELOW bytes are read as realigned 16-byte words
    (`PermutePlan.shift`).
    """
    axes = _fast_axes(shape, strides, "plan_permute")
    if axes is None or axes[1] == axes[2]:
        return None
    live, i, o = axes
    po = pad or shape[o]
    if pad and (o != len(shape) - 1 or pad < shape[o]):
        return None
    dst, acc = [0] * len(shape), 1
    for a in reversed(range(len(shape))):
        dst[a] = acc
        acc *= po if a == o else shape[a]
    rest = tuple(a for a in live if a not in (i, o))
    wr = _read_vector(shape, strides, live, i, itemsize, base_align)
    full = VBYTES // itemsize
    # (elements of 4 bytes or more read one a thread already fill a 128-byte line per warp instruction)
    shift = wr < full and strides[i] == 1 and shape[i] > wr and itemsize < SHIFT_BELOW
    wr = full if shift else wr
    # writes: the destination is fresh (aligned) and its other strides are multiples of po
    ww = _vector(itemsize, po, lambda w: True)
    p = PermutePlan(tuple(shape), tuple(strides), tuple(dst), i, o, rest, itemsize, wr, ww,
                    tile_edge(shape[i], wr, itemsize), tile_edge(po, ww, itemsize), shift=shift, po=po)
    if not rest:
        return p
    # group tiles along the fastest rest axis up to LOADS vectors per thread, evenly
    eg = shape[rest[-1]]
    # (and not below MIN_BLOCKS blocks: a small pack needs its blocks spread over the SMs more)
    g = max(1, min(eg, LOADS * THREADS // max(p.vectors)))
    while g > 1 and (g * p.smem_bytes > SMEM or replace(p, group=g).blocks < MIN_BLOCKS):
        g -= 1
    return replace(p, group=math.ceil(eg / math.ceil(eg / g)))


@dataclass(frozen=True, slots=True)
class RowCopyPlan:
    """A strided view whose fastest source axis is already the destination's (`o`, the last live axis):
    each thread copies one vector of `w` elements along it (no exchange through shared memory; CuPy's
    elementwise copy of such a 4-d view of 2-byte elements ran at 0.5 TB/s on the H100).

    Attributes: shape, strides (elements) of the view; o: the shared fast axis; rest: the other live
    axes, slowest first; itemsize; w: elements per vector.
    """

    shape: tuple[int, ...]
    strides: tuple[int, ...]
    o: int
    rest: tuple[int, ...]
    itemsize: int
    w: int

    @property
    def vectors(self) -> int:
        return math.prod(self.shape) // self.w

    @property
    def blocks(self) -> int:
        return -(-self.vectors // THREADS)


def plan_rowcopy(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int = 4,
                 base_align: int = VBYTES) -> RowCopyPlan | None:
    """The row copy of a view whose source and destination fast axes agree, or None (they differ, the
    view is empty, has fewer than two live axes, or is dense already: a contiguous copy then)."""
    axes = _fast_axes(shape, strides, "plan_rowcopy")
    if axes is None or axes[1] != axes[2]:
        return None
    live, _, o = axes
    dense, acc = {}, 1
    for a in reversed(live):
        dense[a] = acc
        acc *= shape[a]
    if all(strides[a] == dense[a] for a in live):
        return None
    w = _read_vector(shape, strides, live, o, itemsize, base_align)
    return RowCopyPlan(tuple(shape), tuple(strides), o, tuple(a for a in live if a != o), itemsize, w)


def plan_dense(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int = 4,
               base_align: int = VBYTES) -> RowCopyPlan | None:
    """A C-contiguous view as one row (an op pack of a dense input: vectors of up to 16 bytes, where
    CuPy's elementwise kernel moves one element per thread), or None when the view is not dense."""
    n, acc = math.prod(shape), 1
    for e, st in zip(reversed(shape), reversed(strides), strict=True):
        if e > 1 and st != acc:
            return None
        acc *= e
    if n == 0:
        return None
    w = _vector(itemsize, n, lambda w: base_align % (w * itemsize) == 0)
    return RowCopyPlan((n,), (1,), 0, (), itemsize, w)


def rowcopy_source(p: RowCopyPlan, op: str = "", dtype: str = "", body: bool = False) -> str:
    """CUDA source of the row copy (kernel `gett_permute`), op(x) on the way as `permute_source`'s;
    body=True: the device function `body(src, dst, block)` instead (`pair_source`)."""
    item = p.itemsize
    if item not in _BITS:
        raise ValueError(f"rowcopy_source: no copy for {item}-byte elements (1, 2, 4 or 8)")
    rest = [f"  {{ const long long q = r % {p.shape[a]}LL; r /= {p.shape[a]}LL; s += q * {p.strides[a]}LL; }}"
            for a in reversed(p.rest)]  # (fastest rest axis first)
    return "\n".join([
        f"typedef {_BITS[item]} B;",
        f"union VR {{ {_RAW[p.w * item]} raw; B e[{p.w}]; }};",
        *_apply_prelude(op, dtype),
        _entry(body),
        f"  const long long v = {_BLOCK[body]} * {THREADS}LL + threadIdx.x;  // vector v of the destination",
        f"  if (v >= {p.vectors}LL) return;",
        f"  long long r = v / {p.shape[p.o] // p.w}LL, s = (v % {p.shape[p.o] // p.w}LL) * {p.w * p.strides[p.o]}LL;",
        *rest,
        "  VR x;",
        "  x.raw = *reinterpret_cast<const decltype(x.raw)*>(src + s);",
        f"  B y[{p.w}];",
        "#pragma unroll",
        f"  for (int e = 0; e < {p.w}; ++e) y[e] = apply(x.e[e]);",
        f"  __stcg(reinterpret_cast<{_RAW[p.w * item]}*>(dst + v * {p.w}LL), {_packed(p.w, item)});",
        "}",
        "",
    ])


# (bits -> compute type, compute type -> bits) of the dtypes a pack can apply an op to: the op runs in
# the GETT kernel's compute type (float, or double for float64) and rounds to the input type, as fused
_OP_TYPES = {
    "float16": ("float", "__device__ __forceinline__ float to_c(B h) { float f; "
                "asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h)); return f; }\n"
                "__device__ __forceinline__ B from_c(float f) { B h; "
                "asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(f)); return h; }"),
    "float32": ("float", "__device__ __forceinline__ float to_c(B u) { return __int_as_float(int(u)); }\n"
                "__device__ __forceinline__ B from_c(float f) { return B(__float_as_int(f)); }"),
    "float64": ("double", "__device__ __forceinline__ double to_c(B u) { return __longlong_as_double((long long)u); }\n"
                "__device__ __forceinline__ B from_c(double f) { return B(__double_as_longlong(f)); }"),
}


def _apply_prelude(op: str, dtype: str) -> list[str]:
    """CUDA lines defining apply(B) -> B: op(x) in `dtype`'s compute type (rounded back), or the identity."""
    if op and dtype not in _OP_TYPES:
        raise ValueError(f"permute_source: no op in a pack of {dtype or 'unnamed'} elements "
                         f"(float16, float32 or float64)")
    if not op:
        return ["__device__ __forceinline__ B apply(B v) { return v; }"]
    ct, conv = _OP_TYPES[dtype]
    return [f"typedef {ct} T;", conv,
            f"__device__ __forceinline__ B apply(B v) {{ const T x = to_c(v); return from_c(T({op})); }}"]


_BLOCK = {False: "blockIdx.x", True: "block"}


def _entry(body: bool) -> str:
    """The first line of a copy: the kernel's, or (body) a device function's given its block index."""
    args = "const B* __restrict__ src, B* __restrict__ dst"
    if body:
        return f"__device__ __forceinline__ void body({args}, const long long block) {{"
    return f'extern "C" __global__ void __launch_bounds__({THREADS}) gett_permute({args}) {{'


def pair_source(first: str, blocks: int, second: str) -> str:
    """CUDA source of kernel `gett_permute2(src0, dst0, src1, dst1)`: two copies in one launch, blocks
    [0, blocks) running `first`'s body and the rest `second`'s (each rendered with body=True). Two small
    packs (ccsd_t's inputs with an op: 0.3 MB each) then cost one launch, not two."""
    return "\n".join([
        "namespace p0 {", first, "}", "namespace p1 {", second, "}",
        f'extern "C" __global__ void __launch_bounds__({THREADS}) '
        "gett_permute2(const void* s0, void* d0, const void* s1, void* d1) {",
        f"  if (blockIdx.x < {blocks}LL) p0::body(static_cast<const p0::B*>(s0), static_cast<p0::B*>(d0), blockIdx.x);",
        f"  else p1::body(static_cast<const p1::B*>(s1), static_cast<p1::B*>(d1), blockIdx.x - {blocks}LL);",
        "}",
        "",
    ])


def _packed(n: int, item: int) -> str:
    """A CUDA expression of the raw vector type (`_RAW`) holding y[0..n-1], built from 32-bit words and
    stored with __stcg (a union written element by element, or a plain uint4 store, compiled to four
    4-byte stores)."""
    if n * item < 4:
        return "y[0]" if n == 1 else "(unsigned short)(y[0] | (y[1] << 8))"
    if item == 8:
        words = [f"unsigned(y[{e}]{' >> 32' if h else ''})" for e in range(n) for h in (0, 1)]
    else:
        per = 4 // item
        words = [" | ".join(f"(unsigned(y[{w * per + k}]) << {8 * item * k})" if k else f"unsigned(y[{w * per}])"
                            for k in range(per)) for w in range(n * item // 4)]
    if len(words) == 1:
        return words[0]
    return f"make_uint{len(words)}({', '.join(words)})"


def _shifted_read(p: PermutePlan, sg: int) -> list[str]:
    """CUDA lines loading the 16-byte vector x.raw of the source's elements from (ci, co) on (read axis of
    stride 1) as the aligned words that hold them (gettpy.kernels.realign's `aligned_words_load`). Elements past
    the row's end are whatever the first word held: the write side never reads them."""
    return [
        "      unsigned o4[4];",
        *aligned_words_load(f"src + s + g * {sg}LL + ci + co * {p.strides[p.o]}LL",
                            f"({p.shape[p.i]}LL - ci) * {p.itemsize}LL", "o4", "      "),
        "      x.raw = make_uint4(o4[0], o4[1], o4[2], o4[3]);",
    ]


def permute_source(p: PermutePlan, op: str = "", dtype: str = "", body: bool = False) -> str:
    """CUDA source of the tiled copy for plan `p` (kernel `gett_permute`); with `op` (a unary op's CUDA
    expression in x of type T) each element becomes op(x), computed in `dtype`'s compute type (float16,
    float32 or float64 only). body=True: the device function `body(src, dst, block)` instead."""
    item = p.itemsize
    if item not in _BITS:
        raise ValueError(f"permute_source: no tiled copy for {item}-byte elements (1, 2, 4 or 8)")
    ei, eo, po = p.shape[p.i], p.shape[p.o], p.po
    nti, nto = p.tiles
    lr, lw = p.ti // p.wr, p.to // p.ww  # vectors per tile row, read and write side
    nr, nw = p.vectors
    G = p.group
    rest = []
    for a in reversed(p.rest):  # fastest rest axis first: its coordinates come in groups of G
        e = p.shape[a] if a != p.rest[-1] else math.ceil(p.shape[a] / G)
        c = "c" if a != p.rest[-1] else f"c * {G}"
        rest.append(f"  {{ const long long c = b % {e}LL; b /= {e}LL; "
                    f"s += {c} * {p.strides[a]}LL; d += {c} * {p.dst_strides[a]}LL;"
                    + (f" c0 = {c};" if a == p.rest[-1] else "") + " }")
    # (tile g of the group sits g coordinates of the group axis further; past that axis' end: skipped)
    sg, dg = (p.strides[p.rest[-1]], p.dst_strides[p.rest[-1]]) if p.rest else (0, 0)
    eg = p.shape[p.rest[-1]] if p.rest else 1
    return "\n".join([
        f"typedef {_BITS[item]} B;",
        f"union VR {{ {_RAW[p.wr * item]} raw; B e[{p.wr}]; }};",
        *([PICK] if p.shift else []),
        *_apply_prelude(op, dtype),
        _entry(body),
        f"  __shared__ B tile[{G}][{p.to}][{_pitch(p.ti, item)}];  // [group][o][i]",
        f"  long long b = {_BLOCK[body]};",
        f"  const long long to = b % {nto}LL; b /= {nto}LL;",
        f"  const long long ti = b % {nti}LL; b /= {nti}LL;",
        "  long long s = 0, d = 0, c0 = 0;",
        *rest,
        f"  const long long i0 = ti * {p.ti}, o0 = to * {p.to};",
        "  // (1) read: consecutive threads take consecutive vectors along i, tile after tile of the group",
        "#pragma unroll",
        f"  for (int k = 0; k < {math.ceil(G * nr / THREADS)}; ++k) {{",
        f"    const int v = threadIdx.x + k * {THREADS}, g = v / {nr}, vi = v % {nr} % {lr}, r = v % {nr} / {lr};",
        f"    const long long ci = i0 + vi * {p.wr}, co = o0 + r;",
        f"    if (v < {G * nr} && c0 + g < {eg}LL && ci < {ei}LL && co < {eo}LL) {{",
        "      VR x;",
        *(_shifted_read(p, sg) if p.shift else [
            f"      x.raw = *reinterpret_cast<const decltype(x.raw)*>(src + s + g * {sg}LL + ci * {p.strides[p.i]}LL"
            f" + co * {p.strides[p.o]}LL);"]),
        "#pragma unroll",
        f"      for (int e = 0; e < {p.wr}; ++e) tile[g][r][vi * {p.wr} + e] = apply(x.e[e]);",
        "    }",
        "  }",
        "  __syncthreads();",
        "  // (2) write: consecutive threads take consecutive vectors along o",
        "#pragma unroll",
        f"  for (int k = 0; k < {math.ceil(G * nw / THREADS)}; ++k) {{",
        f"    const int v = threadIdx.x + k * {THREADS}, g = v / {nw}, vo = v % {nw} % {lw}, r = v % {nw} / {lw};",
        f"    const long long ci = i0 + r, co = o0 + vo * {p.ww};",
        f"    if (v < {G * nw} && c0 + g < {eg}LL && ci < {ei}LL && co < {po}LL) {{",
        f"      B y[{p.ww}];",
        "#pragma unroll",
        (f"      for (int e = 0; e < {p.ww}; ++e) y[e] = tile[g][vo * {p.ww} + e][r];" if po == eo else
         f"      for (int e = 0; e < {p.ww}; ++e) y[e] = co + e < {eo}LL ? tile[g][vo * {p.ww} + e][r] : B(0);"),
        f"      __stcg(reinterpret_cast<{_RAW[p.ww * item]}*>(dst + d + g * {dg}LL + ci * {p.dst_strides[p.i]}LL "
        f"+ co), {_packed(p.ww, item)});",
        "    }",
        "  }",
        "}",
        "",
    ])


def _kernel(source: str, name: str = "gett_permute"):
    from .build import load_source

    return load_source(source, name)


def _check_out(view, out, pad: int = 0):
    import cupy

    shape = view.shape[:-1] + (pad,) if pad else view.shape
    if out is not None and (out.shape != shape or out.dtype != view.dtype or not out.flags.c_contiguous):
        raise ValueError(f"permute_copy: out must be C-contiguous {view.dtype.name} of shape {shape}, "
                         f"not {out.dtype.name} {out.shape} (c_contiguous={out.flags.c_contiguous})")
    return cupy.empty(shape, dtype=view.dtype) if out is None else out


def _signature(view, op: str) -> tuple:
    """The arguments of `_copy_source` for `view`: what its copy kernel depends on."""
    if op and view.dtype.name not in _OP_TYPES:
        raise ValueError(f"permute_copy: no op in a pack of {view.dtype.name} (float16, float32 or float64)")
    ptr = view.data.ptr
    align = min(ptr & -ptr, VBYTES) if ptr else VBYTES
    return tuple(view.shape), tuple(view.strides), view.dtype.itemsize, align, op, view.dtype.name


@functools.lru_cache(maxsize=256)
def op_kernel(expr: str, dtype: str):
    """A CuPy elementwise kernel out = op(in) for a unary op's CUDA expression `expr` (in x of type T),
    computed in the GETT kernel's compute type for `dtype` (float for float16/float32, double for
    float64) and rounded to `dtype`, exactly as the kernel's fused op."""
    import cupy

    ct = "double" if dtype == "float64" else "float"
    return cupy.ElementwiseKernel("X a", "X b", f"typedef {ct} T; const T x = (T)a; b = (X)({expr});",
                                  "gettpy_op_" + hashlib.sha256(f"{expr}|{dtype}".encode()).hexdigest()[:16])


def permute_pad(view, pad: int, op: str = ""):
    """A fresh C-ordered CuPy copy of `view` (op(view) with `op`, as `permute_copy`'s) whose last axis is
    `pad` long, zero-filled past view's extent, in one tiled copy; None where the tiled copy does not apply
    (`plan_permute` refuses the view with that pad: the source fastest along the view's last axis too, that
    axis of extent 1, a pad below the extent, strides that are not whole elements)."""
    hit = _copy_text(*_signature(view, op), pad=pad)  # (with a pad, the tiled copy or None)
    if hit is None:
        return None
    out = _check_out(view, None, pad)
    _kernel(hit[0])((hit[1],), (THREADS,), (view, out))
    return out


def permute_copy(view, op: str = "", out=None):
    """A fresh C-ordered CuPy copy of the strided CuPy array `view` (same dtype and shape), through the
    tiled kernel where that helps, else CuPy's own copy; with `op` (a unary op's CUDA expression) the copy
    holds op(view), computed as the GETT kernel's fused op (float16, float32 and float64 views). `out`: a
    C-contiguous array of view's shape and dtype to write instead of a fresh one (it must not overlap view); one
    whose data pointer is not 16-byte aligned takes CuPy's copy or the elementwise op kernel (the tiled and row
    copies store 16-byte vectors from a fresh array's alignment)."""
    import cupy

    sig = _signature(view, op)
    aligned = out is None or out.data.ptr % VBYTES == 0
    out = _check_out(view, out)
    hit = _copy_text(*sig) if aligned else None
    if hit is not None:  # (the kernel indexes from the view's first element: negative strides fold in)
        source, blocks = hit
        _kernel(source)((blocks,), (THREADS,), (view, out))
    elif op:  # (dense already, or one live axis: an elementwise kernel is coalesced)
        op_kernel(op, view.dtype.name)(view, out)
    else:
        cupy.copyto(out, view)
    return out


def permute_copy_pair(view0, op0: str, view1, op1: str):
    """(permute_copy(view0, op0), permute_copy(view1, op1)), in one launch where both copies have kernels
    and together move at most PAIR_BYTES (a launch and a tail less: small packs are mostly launch)."""
    sig0, sig1 = _signature(view0, op0), _signature(view1, op1)
    small = view0.nbytes + view1.nbytes <= PAIR_BYTES
    hit = _pair_text(sig0, sig1) if small else None
    if hit is None:
        return permute_copy(view0, op0), permute_copy(view1, op1)
    out0, out1 = _check_out(view0, None), _check_out(view1, None)
    source, blocks = hit
    _kernel(source, "gett_permute2")((blocks,), (THREADS,), (view0, out0, view1, out1))
    return out0, out1


def _copy_source(shape: tuple[int, ...], byte_strides: tuple[int, ...], item: int, align: int, op: str,
                 dtype: str, body: bool = False, pad: int = 0) -> tuple[str, int, int] | None:
    """(CUDA source, blocks, static shared bytes) of the tiled copy or the row copy of a view (with an op, a
    dense view too, as one row), or None where CuPy's copy serves (a dense view without an op, strides that
    are not whole elements, over 2^31 blocks); with `pad` (the destination's last extent, zero-filled past
    the view's) the tiled copy or None."""
    if item not in _BITS or any(s % item for s in byte_strides):
        return None
    strides = tuple(s // item for s in byte_strides)
    p = plan_permute(shape, strides, item, align, pad)
    if p is not None:
        return (permute_source(p, op, dtype, body), p.blocks, p.smem_bytes) if p.blocks < 2**31 else None
    if pad:
        return None
    rc = plan_rowcopy(shape, strides, item, align) or (plan_dense(shape, strides, item, align) if op else None)
    if rc is not None and rc.blocks < 2**31:
        return rowcopy_source(rc, op, dtype, body), rc.blocks, 0
    return None


@functools.lru_cache(maxsize=256)
def _copy_text(shape: tuple[int, ...], byte_strides: tuple[int, ...], item: int, align: int, op: str,
               dtype: str, pad: int = 0):
    """(CUDA source, blocks) of a view's copy (`_copy_source`), or None; planned and rendered once per view
    signature (a pack runs on every call of its plan; `_kernel` loads the source on each device)."""
    hit = _copy_source(shape, byte_strides, item, align, op, dtype, pad=pad)
    return None if hit is None else hit[:2]


@functools.lru_cache(maxsize=256)
def _pair_text(sig0: tuple, sig1: tuple):
    """(CUDA source, blocks) of two views' copies in one launch (`pair_source`), or None where either has no
    kernel or their shared memory together passes a block's static 48 KB."""
    h0, h1 = _copy_source(*sig0, body=True), _copy_source(*sig1, body=True)
    if h0 is None or h1 is None or h0[2] + h1[2] > 48 * 1024 or h0[1] + h1[1] >= 2**31:
        return None
    return pair_source(h0[0], h0[1], h1[0]), h0[1] + h1[1]


__all__ = ["EDGE_BYTES", "EDGE_MAX", "PAIR_BYTES", "PermutePlan", "RowCopyPlan", "THREADS", "edge_limit",
           "pair_source", "permute_copy", "permute_copy_pair", "permute_pad", "permute_source", "plan_dense",
           "plan_permute", "plan_rowcopy", "rowcopy_source", "tile_edge"]
