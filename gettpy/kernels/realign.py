"""A padded pack of misaligned rows: aligned 16-byte loads realigned in registers, margins zero-filled.

A pack whose rows are contiguous in the source but start at offsets that are not whole 16-byte vectors (a
tensor whose stride-1 mode has an odd extent: every row after the first is misaligned) cannot be read in
vectors by the row copy (gettpy.kernels.permute: its vectors need every stride a multiple of the width), so
it reads one element a thread: loads issued per byte grow as 16 / itemsize and the copy runs at a fraction
of the bandwidth. This copy writes a dense buffer whose rows are the source's rows padded to `kp` elements
(kp x itemsize a multiple of 16: every destination row starts aligned). Each thread writes one 16-byte
vector of a row: it loads the aligned 16-byte word holding the vector's first element and, where the vector
straddles into it and it holds some of the row, the next word, shifts the pair by the misalignment
(`__funnelshift_r` over 32-bit words) and zeroes the elements past the row's end. Neighbouring threads load
the same words, which the L1 cache serves, so DRAM sees each byte once.

`plan_realign` (pure) checks the view and returns the copy's plan; `realign_source` renders the kernel;
`realign_pack` runs it on a CuPy view.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

#: threads per block
THREADS = 256
#: bytes of a vector
VBYTES = 16


@dataclass(frozen=True, slots=True)
class RealignPlan:
    """The padded row copy of a view (shape slowest first, element strides, the last axis stride 1).

    Attributes: shape; strides; itemsize; kp: the padded length of the last axis (kp * itemsize a multiple of
    VBYTES, kp >= shape[-1]).
    """

    shape: tuple[int, ...]
    strides: tuple[int, ...]
    itemsize: int
    kp: int

    @property
    def rows(self) -> int:
        return math.prod(self.shape[:-1])

    @property
    def vectors(self) -> int:
        return self.rows * (self.kp * self.itemsize // VBYTES)

    @property
    def blocks(self) -> int:
        return -(-self.vectors // THREADS)


def plan_realign(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int, kp: int) -> RealignPlan | None:
    """The padded row copy of a view into rows of `kp` elements, or None where it does not apply: the last
    axis not of stride 1, kp not whole vectors or shorter than the row, elements of other than 1, 2, 4 or 8
    bytes, an empty view, or over 2^31 blocks."""
    if (len(shape) != len(strides) or not shape or itemsize not in (1, 2, 4, 8) or strides[-1] != 1
            or kp < shape[-1] or (kp * itemsize) % VBYTES or math.prod(shape) == 0):
        return None
    p = RealignPlan(tuple(shape), tuple(strides), itemsize, kp)
    return p if p.blocks < 2**31 else None


#: CUDA: pick<Q>(w, sh, o), the 16 bytes from byte 4 Q + sh / 8 on of the 32 bytes in w (`aligned_words_load`)
PICK = "\n".join([
    "template <int Q>",
    "__device__ __forceinline__ void pick(const unsigned (&w)[8], unsigned sh, unsigned (&o)[4]) {",
    "#pragma unroll",
    "  for (int i = 0; i < 4; ++i) o[i] = __funnelshift_r(w[Q + i], w[Q + i + 1], sh);",
    "}",
])


def aligned_words_load(addr: str, left: str, out: str, indent: str) -> list[str]:
    """CUDA lines (needing `PICK`) that set `unsigned out[4]` to the 16 bytes from byte address `addr` on, loaded
    as the aligned 16-byte words that hold them: the first always, the next only where it holds some of the
    `left` bytes still in the row (so no load reaches past the row's last element), funnel-shifted by the
    misalignment. Bytes past the row's end are whatever the first word held."""
    return [indent + line for line in (
        f"const unsigned long long a = reinterpret_cast<unsigned long long>({addr});",
        "const unsigned off = unsigned(a & 15ull);",
        "const uint4* w0 = reinterpret_cast<const uint4*>(a - off);",
        "const uint4 lo = __ldg(w0);",
        "uint4 hi = make_uint4(0u, 0u, 0u, 0u);",
        f"if (off != 0u && ({left}) > (long long)(16u - off)) hi = __ldg(w0 + 1);  // (only where it holds row bytes)",
        "const unsigned w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};",
        "const unsigned sh = (off & 3u) * 8u;",
        "switch (off >> 2) {",
        f"  case 0: pick<0>(w, sh, {out}); break;",
        f"  case 1: pick<1>(w, sh, {out}); break;",
        f"  case 2: pick<2>(w, sh, {out}); break;",
        f"  default: pick<3>(w, sh, {out}); break;",
        "}",
    )]


def realign_source(p: RealignPlan) -> str:
    """CUDA source of kernel `gett_realign(const char* src, uint4* dst)` (src: the view's first element)."""
    per_row = p.kp * p.itemsize // VBYTES
    row_bytes = p.shape[-1] * p.itemsize
    outer = [(e, s) for e, s in zip(p.shape[:-1], p.strides[:-1], strict=True) if e > 1]
    rest = [f"  {{ const long long q = r % {e}LL; r /= {e}LL; s += q * {st * p.itemsize}LL; }}"
            for e, st in reversed(outer)]  # (fastest outer axis first)
    return "\n".join([
        PICK,
        f'extern "C" __global__ void __launch_bounds__({THREADS}) gett_realign(const char* __restrict__ src, '
        "uint4* __restrict__ dst) {",
        f"  const long long v = (long long)blockIdx.x * {THREADS}LL + threadIdx.x;  // vector v of the destination",
        f"  if (v >= {p.vectors}LL) return;",
        f"  long long r = v / {per_row}LL;",
        f"  const long long j = v % {per_row}LL;  // the vector's place in its row (bytes j * 16 on)",
        "  long long s = 0;  // the row's first byte, from the view's first element",
        *rest,
        f"  const long long left = {row_bytes}LL - j * 16LL;  // bytes of the row from the vector's first on",
        "  unsigned o[4] = {0u, 0u, 0u, 0u};",
        "  if (left > 0) {",
        *aligned_words_load("src + s + j * 16LL", "left", "o", "    "),
        "    if (left < 16) {  // the row's last vector: zeros past its end",
        "#pragma unroll",
        "      for (int i = 0; i < 4; ++i) {",
        "        const long long keep = left - 4 * i;",
        "        o[i] = keep <= 0 ? 0u : keep >= 4 ? o[i] : (o[i] & ((1u << (8 * keep)) - 1u));",
        "      }",
        "    }",
        "  }",
        "  __stcg(dst + v, make_uint4(o[0], o[1], o[2], o[3]));",
        "}",
        "",
    ])


@functools.lru_cache(maxsize=256)
def _realign_text(p: RealignPlan) -> str:
    return realign_source(p)


def _realign_kernel(p: RealignPlan):
    """The loaded realign kernel of `p` on the current device (rendered once per plan)."""
    from .build import load_source

    return load_source(_realign_text(p), "gett_realign")


def realign_pack(view, kp: int):
    """A fresh C-ordered CuPy array of shape view.shape[:-1] + (kp,): view's rows, zero-filled past their end;
    None where `plan_realign` refuses the view (the caller copies another way)."""
    import cupy

    item = view.dtype.itemsize
    if any(s % item for s in view.strides):
        return None
    p = plan_realign(tuple(view.shape), tuple(s // item for s in view.strides), item, kp)
    if p is None or view.data.ptr % item:
        return None
    out = cupy.empty(view.shape[:-1] + (kp,), dtype=view.dtype)
    _realign_kernel(p)((p.blocks,), (THREADS,), (view, out))
    return out


__all__ = ["PICK", "RealignPlan", "aligned_words_load", "plan_realign", "realign_pack", "realign_source"]
