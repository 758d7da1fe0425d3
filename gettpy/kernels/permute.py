"""The schedule's packs on the GPU: a strided N-d copy into a dense tensor, tiled through shared memory.

A pack copies a strided view (slowest axis first) into a fresh C-ordered array. When the view's
fastest-moving source axis is not the destination's last axis, an elementwise copy reads or writes
one element per sector (measured on the H100: CuPy's copy packed TCCG #14's 60 MB operand in 272 us,
0.44 TB/s). This kernel moves 32 x 32 tiles over the two fast axes instead: threads read along the
source's fast axis, exchange through shared memory, and write along the destination's, so both sides
move whole sectors. The remaining axes enumerate the tiles' bases (extents and strides are compiled in,
so the index arithmetic divides by constants).

`plan_permute` (pure) decides the axes; `permute_source` renders the kernel; `permute_copy` runs it on
a CuPy view. The copy moves bits (1-, 2-, 4- or 8-byte elements), so it serves every dtype; a pack that
pre-applies an input's unary op (float16, float32, float64) computes it on the way, in the GETT
kernel's compute type.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

#: tile edge (elements) along the source's and the destination's fast axes
TILE = 32
#: rows of the tile each thread row handles per pass (blocks are TILE x ROWS threads)
ROWS = 8
_BITS = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long"}


@dataclass(frozen=True, slots=True)
class PermutePlan:
    """How a view of `shape` (slowest axis first) with source `strides` (elements) is copied densely.

    Attributes:
        shape, strides: the view. dst_strides: the dense destination's strides (C order).
        i: the source's fast axis (smallest stride), read along by consecutive threads.
        o: the destination's fast axis (the last), written along by consecutive threads.
        rest: the other axes, slowest first: one block per (rest coordinate, tile of i, tile of o).
    """

    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dst_strides: tuple[int, ...]
    i: int
    o: int
    rest: tuple[int, ...]

    @property
    def blocks(self) -> int:
        tiles = math.ceil(self.shape[self.i] / TILE) * math.ceil(self.shape[self.o] / TILE)
        return tiles * math.prod(self.shape[a] for a in self.rest)


def plan_permute(shape: tuple[int, ...], strides: tuple[int, ...]) -> PermutePlan | None:
    """The tiled copy of a view, or None where an elementwise copy is already coalesced on both sides
    (the source's fastest axis is the destination's, or fewer than two axes have extent > 1)."""
    if len(shape) != len(strides):
        raise ValueError(f"plan_permute: shape {shape} and strides {strides} differ in length")
    if any(e <= 0 for e in shape):
        return None
    live = [a for a, e in enumerate(shape) if e > 1]
    if len(live) < 2:
        return None
    o = live[-1]
    i = min(live, key=lambda a: (abs(strides[a]), -a))
    if i == o:
        return None
    dst, acc = [0] * len(shape), 1
    for a in reversed(range(len(shape))):
        dst[a] = acc
        acc *= shape[a]
    rest = tuple(a for a in live if a not in (i, o))
    return PermutePlan(tuple(shape), tuple(strides), tuple(dst), i, o, rest)


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


def permute_source(p: PermutePlan, itemsize: int, op: str = "", dtype: str = "") -> str:
    """CUDA source of the tiled copy for plan `p` and `itemsize`-byte elements (kernel `gett_permute`);
    with `op` (a unary op's CUDA expression in x of type T) each element becomes op(x), computed in
    `dtype`'s compute type (float16, float32 or float64 only)."""
    if itemsize not in _BITS:
        raise ValueError(f"permute_source: no tiled copy for {itemsize}-byte elements (1, 2, 4 or 8)")
    if op and dtype not in _OP_TYPES:
        raise ValueError(f"permute_source: no op in a pack of {dtype or 'unnamed'} elements "
                         f"(float16, float32 or float64)")
    ei, eo = p.shape[p.i], p.shape[p.o]
    ti, to = math.ceil(ei / TILE), math.ceil(eo / TILE)
    rest = []
    for a in reversed(p.rest):  # fastest rest axis first
        rest.append(f"  {{ const long long c = b % {p.shape[a]}LL; b /= {p.shape[a]}LL; "
                    f"s += c * {p.strides[a]}LL; d += c * {p.dst_strides[a]}LL; }}")
    if op:
        ct, conv = _OP_TYPES[dtype]
        prelude = [f"typedef {ct} T;", conv,
                   f"__device__ __forceinline__ B apply(B v) {{ const T x = to_c(v); return from_c(T({op})); }}"]
    else:
        prelude = ["__device__ __forceinline__ B apply(B v) { return v; }"]
    return "\n".join([
        f"typedef {_BITS[itemsize]} B;",
        *prelude,
        f'extern "C" __global__ void __launch_bounds__({TILE * ROWS}) '
        "gett_permute(const B* __restrict__ src, B* __restrict__ dst) {",
        f"  __shared__ B tile[{TILE}][{TILE + 1}];",
        "  long long b = blockIdx.x;",
        f"  const long long to = b % {to}LL; b /= {to}LL;",
        f"  const long long ti = b % {ti}LL; b /= {ti}LL;",
        "  long long s = 0, d = 0;",
        *rest,
        "  const int tx = threadIdx.x, ty = threadIdx.y;",
        f"  const long long i0 = ti * {TILE}, o0 = to * {TILE};",
        "#pragma unroll",
        f"  for (int r = ty; r < {TILE}; r += {ROWS}) {{  // read: consecutive threads along i",
        "    const long long ci = i0 + tx, co = o0 + r;",
        f"    if (ci < {ei}LL && co < {eo}LL)",
        f"      tile[r][tx] = apply(src[s + ci * {p.strides[p.i]}LL + co * {p.strides[p.o]}LL]);",
        "  }",
        "  __syncthreads();",
        "#pragma unroll",
        f"  for (int r = ty; r < {TILE}; r += {ROWS}) {{  // write: consecutive threads along o",
        "    const long long ci = i0 + r, co = o0 + tx;",
        f"    if (ci < {ei}LL && co < {eo}LL) dst[d + ci * {p.dst_strides[p.i]}LL + co] = tile[tx][r];",
        "  }",
        "}",
        "",
    ])


@functools.lru_cache(maxsize=256)
def _kernel(source: str):
    import cupy

    return cupy.RawKernel(source, "gett_permute")


def permute_copy(view, op: str = ""):
    """A fresh C-ordered CuPy copy of the strided CuPy array `view` (same dtype and shape), through the
    tiled kernel where that helps, else CuPy's own copy; with `op` (a unary op's CUDA expression) the copy
    holds op(view), computed as the GETT kernel's fused op (float16, float32 and float64 views)."""
    import cupy

    item = view.dtype.itemsize
    if op and view.dtype.name not in _OP_TYPES:
        raise ValueError(f"permute_copy: no op in a pack of {view.dtype.name} (float16, float32 or float64)")
    strides = tuple(s // item for s in view.strides)
    p = plan_permute(tuple(view.shape), strides) if item in _BITS and all(
        s % item == 0 for s in view.strides) else None
    if p is None or p.blocks >= 2**31:  # (an elementwise kernel is coalesced here)
        if op:
            from ..backends.gpu import op_kernel

            out = cupy.empty(view.shape, dtype=view.dtype)
            op_kernel(op, view.dtype.name)(view, out)
            return out
        return cupy.array(view, order="C", copy=True)
    out = cupy.empty(view.shape, dtype=view.dtype)
    # the kernel indexes from the view's first element; negative strides are folded into the offsets
    _kernel(permute_source(p, item, op, view.dtype.name))((p.blocks,), (TILE, ROWS), (view, out))
    return out


__all__ = ["PermutePlan", "TILE", "permute_copy", "permute_source", "plan_permute"]
