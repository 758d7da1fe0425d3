"""The long-K kernel (longk.cuh): a GEMM of a small M x N over a long K, its inputs read at any alignment.

A contraction whose free extents are small and whose sum is long (a Gram matrix of a few hundred vectors of a
million values, a reduction over a batch of samples) is a stream over its inputs: each byte is used M or N times.
In row-major codes the inputs' leading dimensions are odd (101 orbitals, 1,583,643 samples), so no row but the
first starts on a 16-byte boundary and the GETT tiles read them in 2- or 4-byte pieces. This kernel reads every
line of a stage as the aligned 16-byte words that hold it and shifts them into place on chip; each CTA takes one
slice of K and writes its tile's partial sums (alpha applied) to a workspace W[slice, m, n], which the caller sums.
f16 and bf16 inputs are multiplied on the tensor cores (mma.sync), float32 inputs by FMA on the CUDA cores (float32
products and sums, a float32 workspace) or on the float64 tensor cores (values widened exactly, float64 sums and
workspace: gettpy's float32 GEMM tiles compute so), as the tile says.

`LongKLayout` (pure, frozen) is the whole launch: the plan layer (gettpy.plan.longk) derives it and
`longk_source` renders it without taking decisions; `longk_run` launches it on CuPy arrays.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from importlib import resources

import numpy as np

from ..dtypes import ITEMSIZE
from ..errors import KernelError
from .spec import CUDA_TYPE

#: input types (both inputs of one type; float32 accumulators)
DTYPES = ("f16", "bf16", "f32")


def kt(dtype: str) -> int:
    """Values of k a step of the k loop reads: 128 bytes of every k-major line."""
    return 128 // ITEMSIZE[dtype]


def warp_cols(dtype: str) -> int:
    """The columns a warp tile's width is a multiple of: 16 for mma.sync's fragments, 32 for the FMA path's eight
    threads of 4 columns."""
    return 32 if ITEMSIZE[dtype] == 4 else 16


#: the GETT template's headers of PTX primitives the kernel uses (cp.async, ldmatrix, mma.sync), pasted inside
#: namespace gett before its text
PRIMITIVES = ("gett_ptx.cuh", "gett_mma.cuh")


@dataclass(frozen=True, slots=True)
class LongKTile:
    """A CTA tile: bm x bn outputs, warps_m x warps_n warps, `stages` stage buffers (stages - 1 steps of copies in
    flight while one is shifted); `min_blocks` CTAs an SM the registers are capped for (__launch_bounds__);
    `f64_mma`: float32 products on the float64 tensor cores (else FMA on the CUDA cores; 2-byte inputs always take
    mma.sync)."""

    bm: int
    bn: int
    warps_m: int
    warps_n: int
    stages: int
    min_blocks: int
    f64_mma: bool = False

    def __post_init__(self):
        wm, wn = self.bm // max(self.warps_m, 1), self.bn // max(self.warps_n, 1)
        cols = 8 if self.f64_mma else 16
        if (self.warps_m < 1 or self.warps_n < 1 or self.bm % self.warps_m or self.bn % self.warps_n or wm % 16
                or wn % cols or self.stages < 2 or self.min_blocks < 1):
            raise KernelError(f"LongKTile {self}: a warp tile must be whole 16 x {cols} blocks, stages >= 2")

    def takes(self, dtype: str) -> bool:
        """Whether the kernel of `dtype` inputs runs this tile (float64 mma: float32 inputs only; FMA: a warp tile's
        width a multiple of warp_cols)."""
        if self.f64_mma:
            return dtype == "f32"
        return (self.bn // self.warps_n) % warp_cols(dtype) == 0

    @property
    def threads(self) -> int:
        return 32 * self.warps_m * self.warps_n


def f64_row(rows: int) -> int:
    """Values a k row of a float64-mma tile of `rows` rows takes: 8 or 24 more than a multiple of 32, so that the
    fragment loads' 32 lanes (lane (g, t) at t * row + g) fall in 32 banks."""
    return rows + (8 if rows % 16 == 0 else 16)


def _input_bytes(kmajor: bool, rows: int, dtype: str, f64_mma: bool) -> tuple[int, int]:
    """(raw words of a stage, aligned tile) bytes of one input whose tile has `rows` rows (m or n): the 2-byte tile
    pads each line by 8 values; the float32 tile has kt rows of `rows` values (f64_row's for the float64 mma)."""
    es = ITEMSIZE[dtype]
    lines, length = (rows, kt(dtype)) if kmajor else (kt(dtype), rows)
    tile = kt(dtype) * (f64_row(rows) if f64_mma else rows) if es == 4 else lines * (length + 8)
    return lines * (length * es // 16 + 1) * 16, tile * es


def smem_bytes(tile: LongKTile, a_kmajor: bool, b_kmajor: bool, dtype: str) -> int:
    """Dynamic shared memory of a CTA: `stages` raw stages of both inputs and their aligned tiles."""
    (ra, ta), (rb, tb) = (_input_bytes(a_kmajor, tile.bm, dtype, tile.f64_mma),
                          _input_bytes(b_kmajor, tile.bn, dtype, tile.f64_mma))
    return tile.stages * (ra + rb) + ta + tb


@dataclass(frozen=True, slots=True)
class LongKLayout:
    """One launch: W[z, m, n] = alpha * sum over k of slice z of A(m, k) B(n, k), z < slices.

    Attributes: dtype (of both inputs); M, N, K; a_kmajor / b_kmajor: the input's k stride is 1 (element (r, k) at
    r * ld + k) or its m / n stride is (at k * ld + r); a_ld, b_ld: the other stride (elements); tile; slice:
    values of k a CTA sums (a multiple of `kt`; the last slice may be shorter).
    """

    dtype: str
    M: int
    N: int
    K: int
    a_kmajor: bool
    a_ld: int
    b_kmajor: bool
    b_ld: int
    tile: LongKTile
    slice: int

    def __post_init__(self):
        if self.dtype not in DTYPES:
            raise KernelError(f"LongKLayout: dtype {self.dtype!r} is not one of {DTYPES}")
        if not self.tile.takes(self.dtype):
            raise KernelError(f"LongKLayout: tile {self.tile} does not run {self.dtype} inputs (warp tiles "
                              f"{warp_cols(self.dtype)} columns wide)")
        if min(self.M, self.N, self.K) < 1 or self.a_ld < 0 or self.b_ld < 0:
            raise KernelError(f"LongKLayout: extents M={self.M} N={self.N} K={self.K} must be positive and leading "
                              f"dimensions {self.a_ld}, {self.b_ld} non-negative")
        if self.slice < self.kt or self.slice % self.kt:
            raise KernelError(f"LongKLayout: slice {self.slice} must be a positive multiple of {self.kt}")

    @property
    def kt(self) -> int:
        return kt(self.dtype)

    @property
    def slices(self) -> int:
        return math.ceil(self.K / self.slice)

    @property
    def grid(self) -> tuple[int, int, int]:
        return math.ceil(self.M / self.tile.bm), math.ceil(self.N / self.tile.bn), self.slices

    @property
    def smem(self) -> int:
        return smem_bytes(self.tile, self.a_kmajor, self.b_kmajor, self.dtype)


@functools.lru_cache(maxsize=256)
def longk_source(lay: LongKLayout) -> str:
    """CUDA source of kernel `gett_longk(A, lda, M, B, ldb, N, K, slice, W, alpha)` for `lay`'s tile and reads."""
    t = lay.tile
    prelude = "\n".join([
        "// rendered by gettpy.kernels.longk",
        f"#define BM {t.bm}", f"#define BN {t.bn}", f"#define WARPS_M {t.warps_m}", f"#define WARPS_N {t.warps_n}",
        f"#define NS {t.stages}", f"#define MIN_BLOCKS {t.min_blocks}",
        f"#define A_KMAJOR {str(lay.a_kmajor).lower()}", f"#define B_KMAJOR {str(lay.b_kmajor).lower()}",
        f"#define INPUT_T {CUDA_TYPE[lay.dtype]}", f"#define F64_MMA {str(t.f64_mma).lower()}", "",
    ])
    files = resources.files(__package__)
    primitives = "".join(files.joinpath(h).read_text() for h in PRIMITIVES)
    return (prelude + "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\nnamespace gett {\n" + primitives
            + "}  // namespace gett\n" + files.joinpath("longk.cuh").read_text())


def longk_run(lay: LongKLayout, a, b, alpha):
    """The partial sums W (CuPy, shape (slices, M, N); float64 for a tile of float64 products, else float32) of `lay`
    over CuPy arrays `a`, `b` (each passed by its element (0, 0)'s pointer), times `alpha` rounded to float32,
    launched on the current stream."""
    import cupy

    from .build import load_source

    w = cupy.empty((lay.slices, lay.M, lay.N), dtype=cupy.float64 if lay.tile.f64_mma else cupy.float32)
    f = load_source(longk_source(lay), "gett_longk", lay.smem)
    args = (np.uint64(a.data.ptr), np.int64(lay.a_ld), np.int32(lay.M), np.uint64(b.data.ptr), np.int64(lay.b_ld),
            np.int32(lay.N), np.int64(lay.K), np.int64(lay.slice), np.uint64(w.data.ptr), np.float32(alpha))
    f(lay.grid, (lay.tile.threads,), args, shared_mem=lay.smem, stream=cupy.cuda.get_current_stream())
    return w


__all__ = ["DTYPES", "LongKLayout", "LongKTile", "f64_row", "kt", "longk_run", "longk_source", "smem_bytes",
           "warp_cols"]
