"""The heuristic: a TileConfig from the GEMM shape alone (`choose_tile`), the first step of planning a kernel.

`choose_tile` picks a TileConfig from the GEMM shape alone:

* a narrow side (N <= 32, or M <= 32 after the planner's swap; e.g. N = 24 with M ~ 10^5..10^6) gets a narrow tile on
  that side and a wide one (256 for the mma path) on the other,
  so no work is wasted on padding and the big operand is streamed once, in whole sectors, by many CTAs;
* otherwise the widest tile that still fills the machine: 128x128 (mma) when that gives at least
  one CTA per SM, then 128x64 / 64x128, then 64x64 (memory-bound shapes need CTAs in flight more
  than they need reuse);
* f32 (simt): a narrow side between 16 and 32 (a multiple of 8) gets a tile exactly that wide (24 x 128
  for K >= 256, else 24 x 256); a short K (<= SIMT_SHORT_K: mostly epilogue) takes 64x64 tiles if they
  fill the machine, and a K under one k-tile (outer products) 128 x 64 ones (SIMT_OUTER_TILE); M (or N)
  between 64 and 128, a multiple of 8, takes one tile of exactly that extent
  (M x 128 or 128 x N: 72 rows, not 128 of which 56 are padding) where K is short, the grid fills a
  wave or K is long enough for split-K; otherwise the candidate with the least padded work
  (SIMT_TILE_COST charges the smaller tiles);
* bk = 32 for the mma path (16 when K <= 16), 16 for f32 (8 when 16 would zero-fill over a quarter
  of the k columns, e.g. K = 24), 8 for f64; 4 stages for the mma path
  (3 for simt), fewer when K has fewer k-tiles; a 128x128 mma tile with K >= 64 becomes 128x128x64
  with 3 stages and four 64x64 warp tiles (measured faster on the H100, by the tile probe and the
  autotuner), or on an sm_90 device a wgmma tile: 256x128x64 / 4 stages for compute-bound shapes,
  256x128x64 / 3 for tall skinny ones (M >= TALL N, 128 < N <= 512), 128x128x64 / 3 otherwise; a shape
  with too few CTAs for 128x128 but K >= LONG_K gets 128x64x64 / 8 wgmma tiles.

`int8_mma_tile` picks the int8 tensor-core tile of an integer contraction (a warp-specialised wgmma k32 tile where the
device has wgmma and both inputs have 16-value k runs, else mma.sync m16n8k32), or None where it keeps the SIMT kernel
(backends/gpu_exact.py): both inputs int8 / uint8 and read k-major in vectors of 4 or more, 32-bit accumulators (D,
and C where read, of at most 32 bits, not bool), a compute-bound shape (`compute_bound`, the test the f16 tiles use).

The ordered passes that refine this tile from the plan's layouts are in plan/passes.py, and the lowering
of a plan and its tile into a KernelSpec in plan/tiles.py.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..dtypes import TF32_MODES, is_exact
from ..kernels.spec import INT8_MMA_DTYPES, ITEMSIZE, MMA_DTYPES, TileConfig
from .target import DEFAULT_TARGET

if TYPE_CHECKING:
    from .plan import Plan

#: the SM count plans are made for without a device (the default target's)
SM_COUNT = DEFAULT_TARGET.sm_count
#: flops per byte (2-byte elements, A, B and D moved once) above which a GEMM is compute-bound on the
#: H100 (~790 TFLOP/s over ~2.8 TB/s)
COMPUTE_BOUND_INTENSITY = 280
#: the same for f32 on the simt path (4-byte elements, ~51 TFLOP/s of FFMA over ~2.8 TB/s)
SIMT_COMPUTE_BOUND_INTENSITY = 36
#: M / N from which a memory-bound wgmma shape is tall and skinny (256-row tiles)
TALL = 64
#: K from which a shape too small for a wave of 128x128 tiles takes 128x64 wgmma tiles anyway
LONG_K = 1024
#: output elements per input element from which a one-k-tile mma.sync shape is write-bound (persistent tiles)
WRITE_BOUND = 16
#: K up to which an f32 (simt) shape takes 64x64 tiles: its CTAs are mostly epilogue (D written once per
#: 2K flops), and more, smaller CTAs per SM overlap one's stores with another's FMAs (measured on the H100
#: with K = 24: 1.3-1.4x faster on 64x64x8/3 than on 128x128x16/2)
SIMT_SHORT_K = 32
#: ... except where K is under one k-tile of 8 (outer products: a CTA is its epilogue alone): 128 x 64 tiles of
#: 8 x 4 threads, bk 8, 2 stages (measured on the H100 against the 64 x 64 tiles, K = 1, sides of 823 to 29866,
#: batched or not: 1.05-1.27x, geomean 1.16x; on the 36 CCSD(T) terms with K = 16-27 the same tile was 0.82-1.37x,
#: geomean 0.95x, so those keep 64 x 64)
SIMT_OUTER_TILE = TileConfig(128, 64, 8, 2, tm=8, tn=4)
#: f32 inputs of a compute-bound GEMM on an sm_90 device (compute f32 or f64, no TF32 mode): the f64 tensor
#: cores (KernelSpec.tf32 = 2), which the H100 runs faster than its f32 FMA units (cuBLAS at 5184^3: DGEMM
#: 1.29x faster than SGEMM). 4 warps of 64 x 32 (f64 accumulators: 128 registers a thread), 2 CTAs per SM,
#: bk 32 in 3 stages: 1.02-1.12x faster than the f32 simt heuristic's core on square GEMMs of ~5000
DMMA_TILE = TileConfig(128, 64, 32, 3, wm=64, wn=32, min_blocks=2)
#: f64 inputs on the f64 tensor cores: 4 warps of 32 x 32 (64 f64 accumulators, 128 registers, where the f32 path's
#: 64 x 32 warps with twice the 8-byte fragments needed more than 255 a thread), bk 16 in 4 stages of 8-byte values
#: (72 KB), 3 CTAs an SM (ptxas: 145-153 registers, no spills)
DMMA_F64_TILE = TileConfig(64, 64, 16, 4, wm=32, wn=32, min_blocks=3)


def dmma_tile(dtype: str) -> TileConfig:
    """The f64 tensor cores' tile for inputs of `dtype` (f32 or f64)."""
    return DMMA_F64_TILE if dtype == "f64" else DMMA_TILE
# (bm, bn, wm, wn) of the mma path, (bm, bn, tm, tn) of the simt path
_MMA_WIDE = [(128, 128, 64, 32), (128, 64, 64, 32), (64, 128, 32, 64), (64, 64, 32, 32)]
# (narrow side 17..32: 256 wide, so that an interleaved pair (16 of the output's mode x 8 of the input's
#  y, 128 coordinates) is read as 16 of y: 32-byte runs, whole sectors; measured on the H100 for N = 24:
#  1.1-1.5x faster than 128 wide)
_MMA_NARROW_N = {16: (128, 16, 32, 16), 32: (256, 32, 32, 32)}
_MMA_NARROW_M = {16: (16, 128, 16, 32), 32: (32, 256, 32, 32)}
_SIMT_WIDE = {"f32": [(128, 128, 8, 8), (128, 64, 8, 4), (64, 128, 4, 8), (64, 64, 4, 4)],
              "f64": [(128, 64, 8, 4), (64, 128, 4, 8), (64, 64, 4, 4), (32, 32, 2, 2)]}
_SIMT_NARROW_N = {16: (128, 16, 8, 1), 32: (128, 32, 8, 2)}
#: relative cost of an f32 FMA on a simt tile with 0, 1 or 2 sides of 64 instead of 128 (thread tiles of
#: 8 x 8, 8 x 4 or 4 x 8, 4 x 4: fewer FMAs per shared load)
SIMT_TILE_COST = (1.0, 1.04, 1.10)
_SIMT_NARROW_M = {16: (16, 128, 1, 8), 32: (32, 128, 2, 8)}


#: int8 tensor-core tiles (bm, bn, wm, wn), largest first: the f16 mma.sync tiles' warp layouts, bk = 128 one-byte
#: values (the bytes of their bk = 64), so a stage and its ldmatrix loads are the f16 tile's
_INT8_TILES = [(128, 128, 64, 64), (128, 64, 64, 32), (64, 64, 32, 32)]
#: the warp-specialised int8 wgmma tiles (bm, bn, stages): 48 and 32 KB a stage of bk = 128 one-byte values
INT8_WS_SHAPES = ((128, 256, 4), (128, 128, 6))
#: the fewest values a vector of an int8 tile's input may copy along k (4 bytes: cp.async; a narrower gather along k
#: takes more copies a thread than the loader holds)
INT8_MIN_KVEC = 4


#: `_tma_cost`'s weight of a tile's loads (bm + bn per k) against its tensor-core work (bm x bn per k)
TMA_LOAD_WEIGHT = 64


def _tma_cost(M: int, N: int, batch: int, bm: int, bn: int, cluster: int, sm_count: int) -> int:
    """Predicted time of a warp-specialised tile shape (TMA- or cp.async-fed), in arbitrary units: waves of CTAs
    (tile rows rounded up to whole clusters) times the time of one tile, which does bm x bn work and loads bm + bn
    per k-step (TMA_LOAD_WEIGHT: with 64 the model ranks the shapes measured on the H100 as they ran, for square
    GEMMs of ~5000 and for 41 tile rows, where the five shapes were up to 10% apart)."""
    rows = -(-M // bm)
    ctas = -(-rows // cluster) * cluster * -(-N // bn) * batch
    return -(-ctas // sm_count) * (bm * bn + TMA_LOAD_WEIGHT * (bm + bn))


def kernel_compute(d: str, c: str | None, k: int) -> str:
    """The integer kernel's compute type: "u32" where D (and C, where read) have 32 bits or fewer (the low 32 bits of
    the sum are all D keeps), else "u64"; for a bool D, "u32" while the count of true products (at most k) fits."""
    if d == "b1":
        return "u32" if k < 2**32 and (c is None or ITEMSIZE[c] <= 4) else "u64"
    return "u32" if ITEMSIZE[d] <= 4 and (c is None or ITEMSIZE[c] <= 4) else "u64"


def int8_mma_tile(M: int, N: int, K: int, batch: int, dtypes: tuple[str, str, str | None, str], compute: str,
                  kvec: int, sm_count: int = SM_COUNT, wgmma: bool = False) -> TileConfig | None:
    """The int8 tensor-core tile of an integer contraction, or None where it runs on the SIMT kernel.

    Taken where both inputs are int8 or uint8 (either signedness each), the kernel's compute type is "u32" (D, and C
    where read, of at most 32 bits; backends/gpu_exact.py's `kernel_compute`), D is not bool, both inputs have k runs
    of at least INT8_MIN_KVEC aligned values (`kvec`: the smaller of their k vector widths; the tile reads both
    k-major) and the GEMM is compute-bound (`compute_bound`).

    With `wgmma` (the device has it) and 16-value k runs on both sides: a warp-specialised wgmma tile (k-steps of 32,
    bk = 128: one 128-byte swizzle row), whose loading warpgroup copies 16-byte vectors; the INT8_WS_SHAPES shape of
    least `_tma_cost` (the same wave model as the 2-byte TMA tiles'). Otherwise an mma.sync tile: the largest of
    _INT8_TILES whose grid fills a wave of `sm_count` SMs, else the smallest.

    Args:
        dtypes: (A, B, C or None, D) short names.
    """
    a, b, c, d = dtypes
    if (a not in INT8_MMA_DTYPES or b not in INT8_MMA_DTYPES or compute != "u32" or d == "b1" or c == "b1"
            or kvec < INT8_MIN_KVEC or not compute_bound(M, N, K)):
        return None
    if wgmma and kvec >= 16:
        bm, bn, stages = min(INT8_WS_SHAPES, key=lambda s: _tma_cost(M, N, max(batch, 1), s[0], s[1], 1, sm_count))
        return TileConfig(bm, bn, 128, stages, wm=64, wn=bn, wgmma=True, ws=True)
    ctas = lambda bm, bn: math.ceil(M / bm) * math.ceil(N / bn) * max(batch, 1)  # noqa: E731
    bm, bn, wm, wn = next((t for t in _INT8_TILES if ctas(t[0], t[1]) >= sm_count), _INT8_TILES[-1])
    # (bk: 8 vectors a row, so that a thread's copies of a stage stay 8 on 128-row tiles: k vectors of 4 with bk =
    #  128 took 32 copies a thread, whose offsets spilled; shallower k-tiles get a stage more)
    bk = max(32, min(128, 8 * min(kvec, 16), 1 << max(5, (K - 1).bit_length())))
    return TileConfig(bm, bn, bk, max(2, min(3 if bk == 128 else 4, math.ceil(K / bk))), wm=wm, wn=wn)


def _short_side_k(K: int, ctas: int, sm_count: int = SM_COUNT) -> bool:
    """Whether an f32 short-side tile (M x 128 or 128 x N, 64 < M, N < 128) suits a K: a short K; or a grid
    of at least a wave of them; or a K long enough that the schedule splits it (plan/schedule.py's split-K
    counts slices from this tile's grid). Unsplit, a 72 x 5184 x 5184 GEMM (41 such tiles) was 6% slower
    than on 64 x 64 tiles (H100)."""
    return K <= 256 or ctas >= sm_count or K >= LONG_K


def _short_side_bk(K: int) -> int:
    """bk of the f32 short-side tiles: 8 for a short K (e.g. K = 72), 16 for a long one (a split core of
    K = 864: 3% faster on the H100)."""
    return 8 if K <= 256 else 16


def short_side(tile: TileConfig) -> bool:
    """Whether `tile` is an f32 short-side tile (a side of 72..120, not a power of two)."""
    return not tile.mma and any(64 < x < 128 for x in (tile.bm, tile.bn))


def compute_bound(M: int, N: int, K: int, simt: bool = False) -> bool:
    """Whether a GEMM of M x N x K is compute-bound on the H100 (COMPUTE_BOUND_INTENSITY; on the f32 simt
    path SIMT_COMPUTE_BOUND_INTENSITY)."""
    return M * N * K >= (SIMT_COMPUTE_BOUND_INTENSITY if simt else COMPUTE_BOUND_INTENSITY) * (M * K + K * N + M * N)


def tf32_mode(compute: str, dtype_a: str, dtype_b: str) -> int:
    """KernelSpec.tf32 of an mma tile: the TF32 modes' number; 2 (the f64 tensor cores) for f32 inputs
    computed in f32 or f64, whose exact products and f64 sums are at least as accurate as either, and for f64
    inputs computed in f64 (the tensor cores' f64 fused multiply-adds); else 0."""
    if compute in ("f32", "f64") and dtype_a == dtype_b == "f32" or compute == "f64" and dtype_a == dtype_b == "f64":
        return 2
    return TF32_MODES.get(compute, 0)


def choose_tile(M: int, N: int, K: int, batch: int = 1, dtype: str = "f16", vec_a: int = 8, vec_b: int = 8,
                sm_count: int = SM_COUNT, dtype_b: str | None = None, compute: str = "f32",
                semiring: bool = False, wgmma: bool = True, dmma: bool = True) -> TileConfig:
    """Heuristic TileConfig for a GEMM of M x N x K (times batch) with `dtype` (A) / `dtype_b` inputs.

    The mma path is taken when both inputs are f16 or both bf16, the accumulate type is f32 and the
    sum is the ordinary one (no semiring); every other combination runs on the simt path. vec_a / vec_b:
    vector widths of the inputs (1 = gathers; reserved for the tuner, the heuristic does not use them yet).
    wgmma: the target is an sm_90 device, where the wide f16/bf16 tiles run on warpgroup MMA.
    dmma: f32 inputs of a compute-bound GEMM (at least 128 x 128) may run on the f64 tensor cores of such a
    device (DMMA_TILE): False where an input has 16-byte vectors along neither k nor its m / n (4-byte copies).
    """
    if (dmma and wgmma and tf32_mode(compute, dtype, dtype_b or dtype) == 2 and not semiring
            and min(M, N) >= 128 and compute_bound(M, N, K)):
        return dmma_tile(dtype)
    tf32 = compute in TF32_MODES and dtype == (dtype_b or dtype) == "f32" and not semiring
    mma = (dtype in MMA_DTYPES and (dtype_b or dtype) == dtype and compute == "f32" and not semiring) or tf32
    if not mma and dtype not in ("f32", "f64"):
        dtype = "f64" if compute == "f64" else "f32"
    ctas = lambda bm, bn: math.ceil(M / bm) * math.ceil(N / bn) * max(batch, 1)  # noqa: E731
    simt32 = not mma and dtype == "f32"
    short = lambda side, other: 64 < side < 128 and side % 8 == 0 and other >= 16 * side  # noqa: E731
    if simt32 and 16 < min(M, N) < 32 and min(M, N) % 8 == 0 and max(M, N) >= 16 * min(M, N):
        # f32, a narrow side between tile sizes (e.g. 24): the tile exactly that wide, 8 threads across it
        # (measured on the H100 against 32 x 128: K >= 256 on 24 x 128 with 3 x 4 threads 1.16-1.21x faster;
        # a short K on 24 x 256 with 3 x 8 1.13-1.27x)
        side, t = min(M, N), min(M, N) // 8
        wide, tw, stages = (128, 4, 4) if K >= 256 else (256, 8, 3)
        if M < N:
            return TileConfig(side, wide, 16, stages, tm=t, tn=tw)
        return TileConfig(wide, side, 16, stages, tm=tw, tn=t)
    if N <= 32 and M > N:
        bm, bn, x, y = (_MMA_NARROW_N if mma else _SIMT_NARROW_N)[16 if N <= 16 else 32]
    elif M <= 32:
        bm, bn, x, y = (_MMA_NARROW_M if mma else _SIMT_NARROW_M)[16 if M <= 16 else 32]
    elif simt32 and short(M, N) and _short_side_k(K, ctas(M, 128), sm_count):
        # a short M between tile sizes (e.g. M = 72): one tile row of M x 128, each of 8 x 32 threads M / 8
        # rows x 4 columns, not 128 rows of which 56 are padding (measured on the H100: 1.1-1.9x faster)
        return TileConfig(M, 128, _short_side_bk(K), 3, tm=M // 8, tn=4)
    elif simt32 and short(N, M) and _short_side_k(K, ctas(128, N), sm_count):
        # (the same with N short: 1.8x faster on 128 x 72; with a long K, unsplit, 6% slower: `_short_side_k`)
        return TileConfig(128, N, _short_side_bk(K), 3, tm=4, tn=N // 8)
    else:
        cands = _MMA_WIDE if mma else _SIMT_WIDE["f64" if dtype == "f64" else "f32"]
        if not mma and dtype == "f32" and K <= SIMT_SHORT_K:
            if K < SIMT_OUTER_TILE.bk and M >= 128 and N >= 128:
                return SIMT_OUTER_TILE
            cands = [c for c in cands if c[0] <= 64 and c[1] <= 64]
        pick = cands[-1]
        fits = [c for c in cands if not (c[0] > 64 and M <= 64 or c[1] > 64 and N <= 64)  # (over half padding)
                and ctas(c[0], c[1]) >= sm_count]
        if fits and not mma and dtype == "f32":
            # f32: the least padded work, smaller tiles charged SIMT_TILE_COST (M or N = 296 / 312 on 64
            # rather than 128: 384 -> 320, 8-14% faster on the H100; square GEMMs of ~5000 keep 128 x 128,
            # measured faster than 128 x 64 by 1-5%)
            padded = lambda c: (math.ceil(M / c[0]) * c[0] * math.ceil(N / c[1]) * c[1]  # noqa: E731
                                * SIMT_TILE_COST[(c[0] < 128) + (c[1] < 128)])
            pick = min(fits, key=padded)
        elif fits:
            pick = fits[0]
        bm, bn, x, y = pick
    if mma:
        if (bm, bn) == (128, 128) and K >= 64 and min(vec_a, vec_b) >= 2 and wgmma and not tf32:
            # warpgroup MMA (measured on the H100): compute-bound shapes 256x128x64 with 4 stages (1.4-1.9x
            # faster than the best mma.sync tile); memory-bound ones 128x128x64 with 3 (two CTAs per SM;
            # 1.07-1.17x)
            if compute_bound(M, N, K) and ctas(256, 128) >= sm_count:
                return TileConfig(256, 128, 64, 4, wm=64, wn=128, wgmma=True)
            if M >= TALL * N and 128 < N <= 512 and ctas(256, 128) >= sm_count:
                # tall and skinny (e.g. 92352 x 312): 256 rows per tile (1.19x faster on the H100; the same
                # shape with M and N exchanged was slower with 256 on its short M or its long N, and N = 72
                # 1.2x slower)
                return TileConfig(256, 128, 64, 3, wm=64, wn=128, wgmma=True)
            return TileConfig(128, 128, 64, 3, wm=64, wn=128, wgmma=True)
        if (wgmma and not tf32 and (bm, bn) != (128, 128) and K >= LONG_K and min(vec_a, vec_b) >= 2
                and min(M, N) > 32 and ctas(128, 64) >= sm_count / 2):  # (a side of 32 or less: the narrow tile
            #  pads less; 128 x 64 over a dot product's 1 x 1 output is 8192 products a k for one)
            # too few CTAs for 128x128 but a long K: 128x64 warpgroup tiles, 8 stages, even if under a
            # wave (measured on the H100 for 5184 x 72 x 5184: 1.6x faster than the 64x64 mma.sync tile
            # that fills the machine; a CTA per SM streams its K, so a deeper pipeline keeps more loads in
            # flight: 8 stages 1.19x faster than 4, 6 stages 1.16x)
            return TileConfig(128, 64, 64, 8, wm=64, wn=64, wgmma=True)
        if (bm, bn) == (128, 128) and K >= 64 and min(vec_a, vec_b) >= 2:  # (scalar gathers: too many loads)
            # 4 warps of 64x64 and bk = 64 beat 8 warps of 64x32 (measured on the H100: 1.13-1.4x faster on
            # compute-bound GEMMs), and the autotuner chose it for memory-bound shapes with K = 72..312 too
            return TileConfig(128, 128, 32 if tf32 else 64, 3, wm=64, wn=64)  # (tf32: 4-byte elements)
        bk = 16 if K <= 16 else 32
        if min(bm, bn) <= 32 and 32 < K < 64 and K % 16 == 0 and min(vec_a, vec_b) >= 2 and not tf32:
            # a narrow tile over a short K that bk 32 would cut into 1.5 k-tiles (e.g. K = 48): one k-tile of
            # K, each row of the inputs read whole, none zero-filled (measured on the H100: 1.2x faster; bk
            # 16, three k-tiles, 1.09x). Vector reads
            # only: scalar gathers of 48 k would exceed the loader's 32 copies per thread
            bk = K
        kt = max(1, math.ceil(K / bk))
        stages = max(2, min(4, kt))
        return TileConfig(bm, bn, bk, stages, wm=x, wn=y)
    bk = 8 if dtype == "f64" else 16
    if bk == 16 and K % 8 == 0 and 4 * math.ceil(K / 16) * 16 > 5 * K:
        bk = 8  # (over a quarter of the k-tiles' columns would be zero-fill: K = 24 -> 3 tiles of 8, not 2 of 16)
    kt = max(1, math.ceil(K / bk))
    # (a few k-tiles: one stage more than there are, so the prologue issues every load at once; 5% faster on
    #  the H100 on 64x64x8 with 4 stages for 3 k-tiles)
    stages = kt + 1 if kt <= 3 and bm * bn <= 64 * 64 else max(2, min(3, kt))
    return TileConfig(bm, bn, bk, stages, tm=x, tn=y)


def int8_plan_tile(plan: Plan, sm_count: int):
    """The int8 tensor-core tile of an integer core whose inputs are read (or packed) k-major (heuristic.py's
    `int8_mma_tile`; backends/gpu_exact.py takes it again on the core's real layouts), else None."""
    p = plan.problem
    c = p.c.dtype if p.c is not None else None
    dts = (plan.kernel_a.dtype, plan.kernel_b.dtype, c, p.d.dtype)
    if p.semiring is not None or any(not x.op.is_identity for x in (p.a, p.b, p.d)):
        return None
    if not is_exact(p.d.dtype) or p.compute and not is_exact(p.compute):
        return None  # (the int8 tile's sums are integers: a floating D or compute type runs elsewhere)
    return int8_mma_tile(plan.M, plan.N, plan.K, plan.batch, dts, kernel_compute(p.d.dtype, c, plan.K),
                         INT8_MIN_KVEC, sm_count)


def plan_tile(plan: Plan, sm_count: int, f64_cores: bool = True):
    """The plan's tile (autotuner), the int8 tensor-core tile of an int8 core (`int8_plan_tile`) or the heuristic's
    (f64_cores: as make_schedule's)."""
    if plan.tile is not None:
        return plan.tile
    i8 = int8_plan_tile(plan, sm_count)
    if i8 is not None:
        return i8
    return choose_tile(plan.M, plan.N, plan.K, plan.batch, plan.kernel_a.dtype, dtype_b=plan.kernel_b.dtype,
                       compute=plan.problem.compute, sm_count=sm_count, dmma=f64_cores)
