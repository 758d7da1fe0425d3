"""Tile configuration heuristic and the Plan -> KernelSpec translation for the GPU kernel.

`choose_tile` picks a TileConfig from the GEMM shape alone:

* a narrow side (N <= 32, or M <= 32 after the planner's swap; e.g. N = 24 with M ~ 10^5..10^6) gets a narrow tile on
  that side and a wide one (256 for the mma path) on the other,
  so no work is wasted on padding and the big operand is streamed once, in whole sectors, by many CTAs;
* otherwise the widest tile that still fills the machine: 128x128 (mma) when that gives at least
  one CTA per SM, then 128x64 / 64x128, then 64x64 (memory-bound shapes need CTAs in flight more
  than they need reuse);
* f32 (simt): a narrow side between 16 and 32 (a multiple of 8) gets a tile exactly that wide (24 x 128
  for K >= 256, else 24 x 256); a short K (<= SIMT_SHORT_K: mostly epilogue) takes 64x64 tiles if they
  fill the machine; M (or N) between 64 and 128, a multiple of 8, takes one tile of exactly that extent
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

`kernel_spec` makes the write-bound one-k-tile mma.sync tiles and the tall wgmma tile persistent
(`_persistent`), the compute-bound wgmma tile a TMA-fed warp-specialised one where both inputs have
tensor maps and no op (`_tma_tile`), narrow mma.sync tiles over a k-major input bk 64 (`_kmajor_lines`), the
f32 narrow tile of a long K over a k-major input one wave of 24 x W tiles (`_narrow_simt_wave`),
caps the f32 simt tiles' registers for more CTAs per SM (`_min_blocks`), and adds what the layouts
decide: for each input, the smem orientation and vector width (the dimension with the widest
16-byte-aligned stride-1 run, else a scalar gather along the smaller stride), D's store direction and
width, the ops, read_c and 64-bit indexing.
"""
from __future__ import annotations

import dataclasses
import math

from ..dtypes import TF32_MODES, accumulate_type
from ..errors import KernelError
from ..kernels.spec import ITEMSIZE, MMA_DTYPES, SMEM_LIMIT, KernelSpec, OperandSpec, OutputSpec, TileConfig, rows_split
from ..layouts.descriptor import OperandLayout
from ..ops import cuda_literal
from .partition import NARROW_KMAJOR_K, NARROW_SIDE, NARROW_WIDE
from .plan import Plan
from .target import DEFAULT_TARGET

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

#: f32 inputs of a compute-bound GEMM on an sm_90 device (compute f32 or f64, no TF32 mode): the f64 tensor
#: cores (KernelSpec.tf32 = 2), which the H100 runs faster than its f32 FMA units (cuBLAS at 5184^3: DGEMM
#: 1.29x faster than SGEMM). 4 warps of 64 x 32 (f64 accumulators: 128 registers a thread), 2 CTAs per SM,
#: bk 32 in 3 stages: 1.02-1.12x faster than the f32 simt heuristic's core on square GEMMs of ~5000
DMMA_TILE = TileConfig(128, 64, 32, 3, wm=64, wn=32, min_blocks=2)
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
#: stream-K (TileConfig.sk_ctas) for a compute-bound simt grid whose waves of CTAs are less full than this
#: on average (the last, partial wave idles part of the machine) ...
SK_WAVE_FILL = 0.95
#: ... and whose tiles have at least this many k-tiles to deal out
SK_MIN_KTILES = 32
_SIMT_NARROW_M = {16: (16, 128, 1, 8), 32: (32, 128, 2, 8)}


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


def choose_tile(M: int, N: int, K: int, batch: int = 1, dtype: str = "f16", vec_a: int = 8, vec_b: int = 8,
                sm_count: int = SM_COUNT, dtype_b: str | None = None, compute: str = "f32",
                semiring: bool = False, wgmma: bool = True, dmma: bool = True) -> TileConfig:
    """Heuristic TileConfig for a GEMM of M x N x K (times batch) with `dtype` (A) / `dtype_b` inputs.

    The mma path is taken when both inputs are f16 or both bf16, the accumulate type is f32 and the
    sum is the ordinary one (no semiring); every other combination runs on the simt path. vec_a / vec_b:
    vector widths of the inputs (1 = gathers; reserved for the tuner, the heuristic does not use them yet).
    wgmma: the target is an sm_90 device, where the wide f16/bf16 tiles run on warpgroup MMA.
    dmma: f32 inputs of a compute-bound GEMM (at least 128 x 128) may run on the f64 tensor cores of such a
    device (DMMA_TILE), which read both inputs k-major: False where one would come as 4-byte copies.
    """
    if (dmma and wgmma and tf32_mode(compute, dtype, dtype_b or dtype) == 2 and not semiring
            and min(M, N) >= 128 and compute_bound(M, N, K)):
        return DMMA_TILE
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
            # only: scalar gathers (and tf32's element-wise m/n-major loads) of 48 k would exceed the
            # loader's 32 copies per thread
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


def _first_stride(layout: OperandLayout, dim: str) -> float:
    dm = layout.dim(dim)
    return abs(dm.strides[0]) if dm.strides else math.inf


def tf32_mode(compute: str, dtype_a: str, dtype_b: str) -> int:
    """KernelSpec.tf32 of an mma tile: the TF32 modes' number; 2 (the f64 tensor cores) for f32 inputs
    computed in f32 or f64, whose exact products and f64 sums are at least as accurate as either; else 0."""
    if compute in ("f32", "f64") and dtype_a == dtype_b == "f32":
        return 2
    return TF32_MODES.get(compute, 0)


def input_spec(layout: OperandLayout, mn: str, dtype: str, tile_mn: int, bk: int, kmajor_only=False) -> OperandSpec:
    """How the kernel reads an input on a tile of `tile_mn` x `bk`: k-major with k vectors, mn-major with mn
    vectors (possibly along a non-leading term), or scalar gathers (also the schedule's view of an input)."""
    vk = min(layout.vector_width("k"), bk)
    if kmajor_only:  # tf32 fragments are loaded from k-major tiles: k vectors, else 4-byte copies along k
        return OperandSpec(dtype, layout.dim(mn), layout.dim("k"), layout.dim("b"), max(vk, 1), True, 1)
    vmn, vs = layout.vector_access(mn, tile_mn)  # possibly along a non-leading term (vs > 1)
    vs = vs if vmn > 1 else 1
    if vk > 1 and vk >= vmn:
        kmajor, vec, vs = True, vk, 1
    elif vmn > 1:
        kmajor, vec = False, vmn
    else:  # scalar gather: threads run along the smaller stride
        kmajor, vec, vs = _first_stride(layout, "k") <= _first_stride(layout, mn), 1, 1
    return OperandSpec(dtype, layout.dim(mn), layout.dim("k"), layout.dim("b"), vec, kmajor, vs)


def _d_run(ld: OperandLayout, store: str) -> int:
    """The length of D's stride-1 run along GEMM dimension `store` when it goes on in the other
    dimension (the other's leading map term has stride == run), else 0."""
    ds, do = ld.dim(store), ld.dim("n" if store == "m" else "m")
    if not ds.strides or not do.strides or ds.divisors[0] != 1 or do.divisors[0] != 1 or ds.strides[0] != 1:
        return 0
    run = ds.moduli[0]
    return run if run < ds.extent and do.strides[0] == run and min(do.moduli[0], do.extent) >= 2 else 0


def _store_run(ld: OperandLayout, ncontig: bool, vec: int, tile: TileConfig) -> tuple[int, int]:
    """(run, cont) of D for the epilogue's run-by-run walk (OutputSpec), or (0, 0) where it does not apply:
    the run must be whole vectors, shorter than the tile and divide it, and `cont` (the continuation's
    extent, at most the tile) must divide the tile's other side."""
    store, other = ("n", "m") if ncontig else ("m", "n")
    ec, es = (tile.bn, tile.bm) if ncontig else (tile.bm, tile.bn)
    run = _d_run(ld, store)
    if not run or run >= ec or ec % run or run % vec:
        return 0, 0
    do = ld.dim(other)
    cont = min(do.moduli[0], do.extent, es)
    return (run, cont) if cont >= 2 and es % cont == 0 else (0, 0)


def _run_aligned(tile: TileConfig, ld: OperandLayout) -> TileConfig:
    """A heuristic mma.sync tile whose side along D's short stride-1 run is cut to a multiple of
    the run (e.g. runs of 24, tile 128 -> 96), so that every tile starts on a run and the epilogue
    stores whole runs; the tile unchanged where that does not apply."""
    if tile.wgmma or not tile.mma:  # (simt: the cut 96x128 f32 tile measured 1.3x slower)
        return tile
    for store in ("m", "n"):
        run = _d_run(ld, store)
        size = tile.bm if store == "m" else tile.bn
        if not run or run >= size or size % run == 0:
            continue
        if run % 4:
            continue  # (runs of whole 16-byte vectors for 4-byte elements at least)
        for new in range(size // run * run, (3 * size + 3) // 4 - 1, -run):  # the largest multiple, >= 3/4
            gran = 16 if store == "m" else 8
            w = next((w for w in (new // 2, new) if w % gran == 0 and new % w == 0), 0)
            kw = {"bm": new, "wm": w} if store == "m" else {"bn": new, "wn": w}
            if store == "m" and tile.bn % 64 == 0:
                # four warps of w x 64 (measured on the H100: 1.08x faster than eight of w x 32)
                kw["wn"] = 64
            if w:
                try:
                    cut = dataclasses.replace(tile, **kw)
                except KernelError:
                    continue
                if cut.threads >= min(128, tile.threads):
                    return cut
    return tile


def _kmajor_lines(tile: TileConfig, plan: Plan) -> TileConfig:
    """A narrow mma.sync tile (one side of 32 or less) whose wide side's input is read k-major in 16-byte
    vectors gets bk 64, 3 stages, where K >= 128: a k-tile then reads each row of that input as one
    128-byte line, not two 64-byte halves at different times (measured on the H100: 1.14x faster; with the
    wide input read mn-major 1-4% slower, so not there); the tile unchanged otherwise. It is also persistent:
    with a few k-tiles a tile, the next tile's loads then run during this one's epilogue (4% faster; smaller
    persistent tiles, which balance the CTAs better, were slower).

    The f32 narrow simt tile of a long K over such an input takes `_narrow_simt_wave` instead."""
    if not tile.mma or tile.wgmma or tile.bk != 32 or plan.K < 128 or min(tile.bm, tile.bn) > 32:
        return tile
    if not _wide_kmajor(tile, plan, 64):
        return tile
    return dataclasses.replace(tile, bk=64, stages=3, persistent=True)


def _kmajor16(plan: Plan, dim: str, width: int, bk: int) -> bool:
    """Whether the input on the kernel's `dim` ("m": A, "n": B) is read k-major in 16-byte vectors by a tile
    `width` wide along `dim`, at k-tiles of `bk`."""
    layout, dtype = (plan.layout_a, plan.kernel_a.dtype) if dim == "m" else (plan.layout_b, plan.kernel_b.dtype)
    op = input_spec(layout, dim, dtype, width, bk)
    return op.kmajor and op.vec * ITEMSIZE[dtype] == 16


def _wide_kmajor(tile: TileConfig, plan: Plan, bk: int) -> bool:
    """Whether a narrow tile's wide side reads its input k-major in 16-byte vectors, at k-tiles of `bk`."""
    return _kmajor16(plan, "m", tile.bm, bk) if tile.bm > tile.bn else _kmajor16(plan, "n", tile.bn, bk)


#: the most threads of `_narrow_simt_wave`'s tiles: their 12 x 4 thread tiles take 167 registers (384 x 168
#: of the SM's 65536)
NARROW_WAVE_THREADS = 384


def _narrow_simt_wave(tile: TileConfig, plan: Plan, sm_count: int = SM_COUNT) -> TileConfig:
    """The f32 narrow simt tile of a long K (`choose_tile`'s 24 x 128 x 16, 3 x 4 threads) whose wide side
    reads its input k-major in 16-byte vectors (e.g. M ~ 10^5 by N = 24) becomes one wave of wide tiles, one CTA per SM,
    where that side is at least 128 x sm_count long: side x W x 16 / 3 with two rows of side/2 x 4 thread
    tiles, W the least multiple of 64 (whole warps) that covers the wide side in sm_count tiles, or in a
    multiple of sm_count where W would pass NARROW_WAVE_THREADS threads. A shorter wide side takes 32 x 128 x
    32 / 3 with 4 x 4 threads, the narrow side padded to 32 (1.1x faster end to end on the H100; 24 x 128 x 32
    and 32 x 128 x 16 no faster; with the wide input read mn-major 3% slower, so not there). The tile unchanged
    otherwise.

    Measured on the H100 (round-robin tile probes of the core, N = 24, M ~ 10^5): 24 x 704 x 16 / 3 (352
    threads, one tile an SM) 0.84x the time of 32 x 128 x 32 / 3 of 4 x 4 threads (24 rows padded to 32);
    2 stages 0.86, 4 stages 0.89, bk 8 0.87-0.89, no L2 prefetch 1.03, 256 B 0.87, 6 x 8 thread tiles 0.87,
    fewer CTAs than SMs 0.89, two CTAs an SM 0.86; 24-row tiles of more CTAs 0.97 to 1.41."""
    side, long_side = (tile.bm, plan.N) if tile.bm < tile.bn else (tile.bn, plan.M)
    if (tile.mma or tile.bk != 16 or plan.K < 256 or not 16 < side < 32 or max(tile.bm, tile.bn) != 128
            or plan.problem.compute != "f32" or plan.kernel_a.dtype != "f32" or plan.kernel_b.dtype != "f32"
            or not _wide_kmajor(tile, plan, 16)):  # (measured on f32 inputs)
        return tile
    if long_side < 128 * sm_count:
        return dataclasses.replace(tile, bm=32 if tile.bm < tile.bn else 128, bn=32 if tile.bn < tile.bm else 128,
                                   bk=32, stages=3, tm=4, tn=4)
    most = NARROW_WAVE_THREADS // 2 * 4  # (the widest tile: two thread rows of 4 columns a thread)
    waves = math.ceil(long_side / (sm_count * most))
    w = 64 * math.ceil(long_side / (sm_count * waves * 64))
    if tile.bm < tile.bn:
        return TileConfig(side, w, 16, 3, tm=side // 2, tn=4, group_m=tile.group_m)
    return TileConfig(w, side, 16, 3, tm=4, tn=side // 2, group_m=tile.group_m)


def _narrow_ws(tile: TileConfig, plan: Plan) -> TileConfig:
    """On sm_90, a long narrow GEMM with its wide input read k-major on the kernel's M (where the partitioner
    puts it: plan/partition.py `narrow_kmajor_wide`) runs on a persistent warp-specialised wgmma tile
    of 256 x 32 x 64, 4 stages, fed by cp.async loaders with the narrow tiles' L2 prefetch (NARROW_PREFETCH);
    the tile unchanged otherwise (and on other devices, where the swapped plan keeps a narrow mma.sync tile).

    Measured on the H100 (round-robin tile probes, M ~ 10^5, N = 24, K ~ 300), against the heuristic's narrow
    mma.sync tile on the other transpose flag (32 x 256 x 64 / 3, persistent, A's panel resident): f16 0.93x
    its time (5 stages 0.96x, not persistent 0.97x, other prefetch sizes 0.99x), f16 -> f32 0.96x; 128 x 32
    tiles of 6-8 stages 1.02-1.05x. Nsight Compute had the mma.sync tile at 60% of DRAM bandwidth against 67%
    for cuBLAS's warp-specialised kernel of 7 stages, which read the same bytes."""
    p, ta = plan.problem, plan.kernel_a
    if not (tile.mma and not tile.wgmma and not tile.tma and ta.dtype == plan.kernel_b.dtype
            and ta.dtype in ("f16", "bf16") and p.compute == "f32" and p.semiring is None and plan.batch == 1):
        return tile
    lo, hi = NARROW_SIDE
    if not (lo <= plan.N <= hi and plan.N % 8 == 0 and plan.M >= NARROW_WIDE and plan.K >= NARROW_KMAJOR_K):
        return tile
    if _op_expr(plan.ops[0]) or _op_expr(plan.ops[1]):  # (a warp-specialised tile applies no op to A or B)
        return tile
    if not _kmajor16(plan, "m", 256, 64):
        return tile
    return NARROW_WS_TILE


def _persistent(tile: TileConfig, M: int, N: int, K: int) -> TileConfig:
    """The heuristic tile made persistent where that measured faster on the H100: mma.sync tiles of one
    k-tile whose output outweighs the inputs WRITE_BOUND times (the next tile's loads then run during this
    tile's stores; 3-10% faster), and the tall wgmma tile (8%). Not elsewhere: the 128x128 wgmma tiles (6-20%
    slower), the narrow tiles (2-4% slower) and the simt tiles (11% slower) were slower persistent.
    (`_kmajor_lines` makes its narrow tile persistent itself, and `_chunked_epilogue` the 256 x 160 TMA
    tile where D allows: both rules need what this one is not given, the input's layout and D's.)"""
    one_k = tile.mma and not tile.wgmma and 0 < K <= tile.bk and M * N >= WRITE_BOUND * K * (M + N)
    tall = tile.wgmma and (tile.bm, tile.bn, tile.stages) == (256, 128, 3) and not compute_bound(M, N, K)
    return dataclasses.replace(tile, persistent=True) if one_k or tall else tile


#: the TMA tile shapes `_tma_tile` chooses among (bm x bn; 256 x 160: 160 accumulators a computing thread,
#: the loaders' registers moved to them by setmaxnreg)
TMA_SHAPES = ((128, 256), (128, 240), (128, 224), (128, 208), (256, 160))
#: `_tma_cost`'s weight of a tile's loads (bm + bn per k) against its tensor-core work (bm x bn per k)
TMA_LOAD_WEIGHT = 64


def _tma_cost(M: int, N: int, batch: int, bm: int, bn: int, cluster: int, sm_count: int) -> int:
    """Predicted time of a TMA tile shape, in arbitrary units: waves of CTAs (tile rows rounded up to whole
    clusters) times the time of one tile, which does bm x bn work and loads bm + bn per k-step
    (TMA_LOAD_WEIGHT: with 64 the model ranks the shapes measured on the H100 as they ran, for square GEMMs
    of ~5000 and for 41 tile rows, where the five shapes were up to 10% apart)."""
    rows = -(-M // bm)
    ctas = -(-rows // cluster) * cluster * -(-N // bn) * batch
    return -(-ctas // sm_count) * (bm * bn + TMA_LOAD_WEIGHT * (bm + bn))


def _tma_tile(plan: Plan, tile: TileConfig, sm_count: int = SM_COUNT) -> TileConfig:
    """The compute-bound wgmma tile as a TMA-fed warp-specialised tile with 4 stages where both inputs have
    tensor maps (measured on the H100 for compute-bound GEMMs: 128 x 256 1.05-1.13x faster than the 256x128x64
    / 4 cp.async tile; warp specialisation with cp.async loads was slower); the tile unchanged otherwise.

    Its shape is the TMA_SHAPES one of least `_tma_cost`: whole waves of tiles that waste little of the
    last (e.g. 660 tiles of 256 x 160 are 5 waves of 132 SMs, 840 of 128 x 256 are 6.4). Where the tile rows
    pair up (an even number of them), the tile runs in clusters of two CTAs that multicast their shared B stage
    (TileConfig.cluster): 1.05-1.13x faster on the H100. Not with an odd number: padded by a row, it ran even.

    B's mn dimension may be two stride terms that the tiles straddle, read in boxes of fewer rows
    (kernels/tma.py); A's may not. Measured against the cp.async tile on the H100: five shapes of C = A[d, c, a] B[d,
    b] or A[d, a, c] B[b, d] with a of 40-104, B's boxes
    of 8-40 rows, ran 1.20-1.46x faster; A[d, c, a] as A (boxes of 8 rows, 128 x 240, no cluster) ran 1.14x
    slower."""
    from ..kernels.tma import geometry

    def maps(op, tmn, whole):  # (whole: boxes of the tile's rows only)
        g = geometry(op, tmn, 64, plan.batch)
        return g if g is not None and (not whole or g.rows in (0, tmn)) else None

    if not (tile.wgmma and (tile.bm, tile.bn, tile.stages) == (256, 128, 4)):
        return tile
    best = None
    for bm, bn in TMA_SHAPES:
        new = TileConfig(bm, bn, 64, 4, wm=64, wn=bn, wgmma=True, ws=True, tma=True)
        ops = [input_spec(lay, mn, dt, tmn, new.bk) for lay, mn, dt, tmn in (
            (plan.layout_a, "m", plan.kernel_a.dtype, bm), (plan.layout_b, "n", plan.kernel_b.dtype, bn))]
        if any(op.vec * ITEMSIZE[op.dtype] != 16 or maps(op, tmn, whole) is None
               for op, tmn, whole in zip(ops, (bm, bn), (True, False), strict=True)):
            continue
        # (a cluster loads B in boxes of half the tile when B is k-major)
        if math.ceil(plan.M / bm) % 2 == 0 and maps(ops[1], bn // 2, False) is not None:
            new = dataclasses.replace(new, cluster=2)
        # (an mn-major B's half-used last column atom as a box of its 32 columns: 1% faster and 1% less energy a
        #  call under the H100's power cap)
        if bn % 64 == 32 and not ops[1].kmajor:
            new = dataclasses.replace(new, half_atom=True)
        cost = _tma_cost(plan.M, plan.N, plan.batch, bm, bn, new.cluster, sm_count)
        if best is None or cost < best[0]:
            best = (cost, new)
    return best[1] if best else tile


def _min_blocks(tile: TileConfig, a: OperandSpec, b: OperandSpec, heavy: bool = False) -> TileConfig:
    """A heuristic f32 simt tile with its registers capped for more CTAs per SM (TileConfig.min_blocks),
    where that measured faster on the H100: 64 x 64 for 4 (1-8%), 128 x 64 / 64 x 128 for 3 (1-5%), 128 x 128
    for 2 where neither input is read k-major (4%; with k-major fragments the 128 registers spill: 1-3%
    slower, so those take 128 x 64 tiles for 2). The caps of 64 and 80 registers leave 8-24 bytes of spills in some of
    these kernels
    (L1-resident; measured faster with them).

    A compute-bound (`heavy`) 128 x 128 tile with neither input k-major becomes 128 x 64 with 128 threads of
    8 x 8, 3 CTAs per SM and 4 stages: the same FMAs per shared load, and 168 registers, with which ptxas
    puts the FFMAs' sources in different register banks far more often than under the 128-register cap of
    two 256-thread CTAs (the H100's dispatch stalls: 4-7% faster on square GEMMs of ~5000); compute-bound
    128 x 64 and 64 x 128 tiles take the same threads (7-9% faster)."""
    if tile.mma or tile.tm == 0 or tile.threads != 256 or (a.dtype, b.dtype) != ("f32", "f32"):
        return tile  # (f64 tiles need their registers)
    n = {(64, 64): 4, (128, 64): 3, (64, 128): 3}.get((tile.bm, tile.bn), 0)
    if heavy and ((tile.bm, tile.bn) == (128, 128) and not (a.kmajor or b.kmajor)
                  or (tile.bm, tile.bn) in ((128, 64), (64, 128))):
        bm, bn = (tile.bm, tile.bn) if tile.bm != tile.bn else (128, 64)
        return TileConfig(bm, bn, 16, 4, tm=8, tn=8, group_m=tile.group_m, min_blocks=3)
    if (tile.bm, tile.bn) == (128, 128) and not (a.kmajor or b.kmajor):
        n = 2
    elif (tile.bm, tile.bn) == (128, 128):
        # a k-major input: 128 x 64 with 2 CTAs per SM (1-3% faster on the H100)
        return dataclasses.replace(tile, bn=64, tn=4, min_blocks=2)
    return dataclasses.replace(tile, min_blocks=n) if n else tile


def _stream_k(tile: TileConfig, M: int, N: int, K: int, batch: int, sm_count: int,
              min_waves: float = 1) -> TileConfig:
    """A heuristic simt tile of a compute-bound shape (the caller's test) with stream-K CTAs
    (TileConfig.sk_ctas: one per CTA slot of the device, sm_count x min_blocks) where the grid has at
    least `min_waves` waves of those slots and ends in a partial one (its waves less than SK_WAVE_FILL
    full on average: e.g. 3321 tiles of 128 x 64 on 396 slots are 8.39 waves, 93%; 3% faster on the H100;
    8.18 waves were within noise). Not for the TMA warp-specialised tensor-core tiles: measured slower there."""
    if tile.mma or tile.persistent or math.ceil(K / tile.bk) < SK_MIN_KTILES:
        return tile
    slots = sm_count * tile.min_blocks
    nt = math.ceil(M / tile.bm) * math.ceil(N / tile.bn) * batch
    if nt < max(1, min_waves) * slots or nt / (math.ceil(nt / slots) * slots) >= SK_WAVE_FILL:
        return tile
    return dataclasses.replace(tile, sk_ctas=slots)


def _op_expr(op) -> str:
    if op is None or op.is_identity or op.cuda.strip() == "x":
        return ""
    return op.cuda


def kernel_spec(plan: Plan, read_c: bool, tile: TileConfig | None = None, sm_count: int = SM_COUNT,
                wgmma: bool = True) -> KernelSpec:
    """The KernelSpec of `plan` (beta != 0 and a C given: read_c=True).

    wgmma=False (a device other than sm_90) keeps the heuristic off warpgroup-MMA tiles.
    """
    ta, tb = plan.kernel_a, plan.kernel_b
    p = plan.problem
    if tile is None:
        tile = plan.tile
    chosen = tile is None  # (the heuristic's tile, not a caller's or the tuner's)
    if chosen:
        va = max(plan.layout_a.vector_width("k"), plan.layout_a.vector_access("m")[0])
        vb = max(plan.layout_b.vector_width("k"), plan.layout_b.vector_access("n")[0])
        kvec = min(plan.layout_a.vector_width("k"), plan.layout_b.vector_width("k"))
        tile = choose_tile(plan.M, plan.N, plan.K, plan.batch, ta.dtype, va, vb, sm_count, tb.dtype, p.compute,
                           p.semiring is not None, wgmma, dmma=kvec >= 4)
        tile = _persistent(_run_aligned(_kmajor_lines(tile, plan), plan.layout_d), plan.M, plan.N, plan.K)
        tile = _narrow_simt_wave(tile, plan, sm_count)
        tile = _narrow_ws(tile, plan) if wgmma else tile
    tf32 = tf32_mode(p.compute, ta.dtype, tb.dtype) if tile.mma else 0
    if tf32 == 2 and tile.wgmma:  # (no warpgroup MMA on f64: refused below as f32 inputs on a wgmma tile)
        tf32 = 0
    if tile.mma and not tf32 and (ta.dtype not in MMA_DTYPES or tb.dtype != ta.dtype or p.compute != "f32"):
        raise KernelError(f"tile {tile} is an mma tile but A, B are {ta.dtype}, {tb.dtype} (compute {p.compute})")
    if tile.ws and (_op_expr(plan.ops[0]) or _op_expr(plan.ops[1])):
        raise KernelError(f"tile {tile} is warp-specialised, which applies no op to A or B in the kernel: give "
                          f"another tile (or pack the inputs with the op applied)")
    if tile.mma and p.semiring is not None:
        raise KernelError(f"tile {tile} is an mma tile but the contraction uses semiring {p.semiring.name} "
                          f"(tensor cores only add and multiply): give a simt tile")
    if chosen and not (_op_expr(plan.ops[0]) or _op_expr(plan.ops[1])):
        tile = _tma_tile(plan, tile, sm_count)
    a = input_spec(plan.layout_a, "m", ta.dtype, tile.bm, tile.bk, bool(tf32))
    b = input_spec(plan.layout_b, "n", tb.dtype, tile.bn, tile.bk, bool(tf32))
    if chosen:
        heavy = compute_bound(plan.M, plan.N, plan.K, True)
        capped = _min_blocks(tile, a, b, heavy)
        if (capped.bm, capped.bn) != (tile.bm, tile.bn):  # (a new tile shape: the reads as it sees them)
            a = input_spec(plan.layout_a, "m", ta.dtype, capped.bm, capped.bk, bool(tf32))
            b = input_spec(plan.layout_b, "n", tb.dtype, capped.bn, capped.bk, bool(tf32))
        tile = capped
        if p.semiring is None and heavy:
            tile = _stream_k(tile, plan.M, plan.N, plan.K, plan.batch, sm_count)
    ld = plan.layout_d
    vdn, vdm = min(ld.vector_width("n"), tile.bn), min(ld.vector_width("m"), tile.bm)
    if max(vdn, vdm) > 1:
        ncontig = vdn >= vdm
    else:
        ncontig = _first_stride(ld, "n") <= _first_stride(ld, "m")
    vd = vdn if ncontig else vdm
    run, cont = _store_run(ld, ncontig, vd, tile)
    d = OutputSpec(p.d.dtype, ld.dim("m"), ld.dim("n"), ld.dim("b"), vd, ncontig, run, cont)
    c = None
    if read_c:
        if plan.layout_c is None or p.c is None:
            raise KernelError("read_c=True but the plan has no C operand")
        lc = plan.layout_c
        c = OutputSpec(p.c.dtype, lc.dim("m"), lc.dim("n"), lc.dim("b"))
    layouts = [plan.layout_a, plan.layout_b, plan.layout_d] + ([plan.layout_c] if read_c else [])
    big = 2**31 - 1 - 1024
    index64 = any(lay.needs_64bit for lay in layouts) or max(plan.M, plan.N, plan.K, plan.batch) >= big
    op_a, op_b, op_c, op_d = plan.ops
    compute = "f64" if tf32 == 2 else accumulate_type(p.compute)
    if compute not in ("f32", "f64"):
        raise KernelError(f"no GPU kernel for compute type {compute} (a complex plan runs as real launches of "
                          f"gettpy.backends.gpu_complex.real_plan; kernel_spec takes real plans only)")
    for name, t in (("A", ta.dtype), ("B", tb.dtype), ("D", p.d.dtype)):
        if t not in ITEMSIZE:
            raise KernelError(f"operand {name}: no GPU kernel for dtype {t}")
    spec = KernelSpec(tile, plan.M, plan.N, plan.K, plan.batch, a, b, c, d, compute,
                      _op_expr(op_a), _op_expr(op_b), _op_expr(op_c) if read_c else "", _op_expr(op_d),
                      read_c, index64, _semiring_exprs(p.semiring), tf32)
    if chosen and _chunked_epilogue(spec):
        spec = dataclasses.replace(spec, tile=dataclasses.replace(tile, persistent=True, chunked=True, group_m=4,
                                                                  serpentine=True))
    if chosen and tile.persistent and spec.smem_bytes > SMEM_LIMIT:
        # (a heuristic persistent tile whose epilogue tile does not fit beside its pipeline, e.g. with an f32
        #  output, would fall back to the safe tile, 1.7x slower)
        spec = dataclasses.replace(spec, tile=dataclasses.replace(tile, persistent=False))
    if chosen:
        spec = _narrow_copies(spec)
    if chosen and wgmma:
        spec = _row_stream(spec, plan, read_c)
    return spec


#: the heuristic's row-stream tile (TileConfig.rows): rows a unit, parts of K, stages (fewer where they do not fit)
ROW_STREAM = (64, 4, 4)


def _row_stream(spec: KernelSpec, plan: Plan, read_c: bool) -> KernelSpec:
    """On sm_90, the long narrow GEMM of `_narrow_ws` on a row-stream tile (TileConfig.rows: whole k-major
    rows of the wide input in units of 64 rows, landed by 1-d bulk copies in A's memory order, 16 warps on mma.sync,
    K in 4 parts) where its wide input's rows are K contiguous values (kernels/spec.py `rows_split`); units of 8
    values of m's first part where that part divides by 8 (D's 16-byte vectors along m), else 1; 4 stages, fewer where
    they do not fit in shared memory. The spec unchanged otherwise.

    Measured on the H100 for M ~ 10^5, N = 24, K ~ 300 (a 57.6 MB wide input): a grid-stride copy kernel reads the
    input at 2.86 TB/s, 1.37x faster than the warp-specialised wgmma tile ran the GEMM (as fast as torch.einsum). A
    prototype with 4 warps of 16 rows (B's fragments in registers) was 1.05x slower than that tile, 8 warps with K
    in 2 parts 1.06x faster, 16 warps with K in 4 parts 1.10x faster (3 stages alike; smaller copies or units of 128
    rows slower). This kernel, end to end: f16 1.09x faster than torch, f16 -> f32 1.3x."""
    if spec.tile != NARROW_WS_TILE:
        return spec
    p = rows_split(plan.layout_a.dim("m"), plan.K)
    if p is None:
        return spec
    rows, parts, most = ROW_STREAM
    bn = -(-plan.N // 8) * 8
    for stages in range(most, 1, -1):
        tile = TileConfig(rows, bn, 16, stages, wm=16, wn=bn, persistent=True, rows=parts,
                          rows_run=8 if p % 8 == 0 else 1)
        try:
            return kernel_spec(plan, read_c, tile=tile)
        except KernelError:
            continue
    return spec


#: the L2 prefetch size of the heuristic's narrow cp.async tiles (TileConfig.l2_prefetch)
NARROW_PREFETCH = 128
#: the tile of `_narrow_ws`
NARROW_WS_TILE = TileConfig(256, 32, 64, 4, wm=64, wn=32, wgmma=True, ws=True, persistent=True,
                            l2_prefetch=NARROW_PREFETCH)


def _narrow_copies(spec: KernelSpec) -> KernelSpec:
    """The heuristic's narrow cp.async tiles (a side of 32 or less, e.g. M = 24) copy with an
    L2 prefetch of NARROW_PREFETCH bytes, and on the mma.sync path they keep A's panel resident in shared
    memory on a persistent tile, where the kernel takes one (TileConfig.resident_a), and apply an op on B to
    B's fragments (TileConfig.frag_op_b).

    Measured on the H100, round-robin tile probes of the core kernels:
    - 128 B on the heuristic's narrow tiles: f16 0.946-0.966 of their time, other cp.async cores 0.978-1.013
      (geomean 0.990); f32 narrow tiles 0.936-1.005, but compute-bound simt 128 x 64 tiles 1.001-1.050, so
      narrow tiles only. 256 B: 1.035 on geomean, up to 1.15 on tall shapes.
    - persistent + resident + 128 B, f16 narrow tiles: 0.69-0.96 (persistent alone 0.96-1.15, resident alone
      0.99-1.00); f32 (simt): 1.02 on geomean, so not there.
    With an op on B, the mma.sync tiles apply it to B's fragments (TileConfig.frag_op_b): leaky_relu on A, B and
    D, 0.91-0.96 of the stage transform's time.
    """
    t = spec.tile
    if t.wgmma or t.tma or min(t.bm, t.bn) > 32:
        return spec
    tile = dataclasses.replace(t, l2_prefetch=NARROW_PREFETCH, frag_op_b=t.mma and bool(spec.op_b) and not spec.tf32)
    if panel_fits(t, spec.M, spec.batch, spec.a.kmajor):
        try:  # (KernelSpec refuses a panel it cannot keep in shared memory: see TileConfig.resident_a)
            return dataclasses.replace(spec, tile=dataclasses.replace(tile, persistent=True, resident_a=True))
        except KernelError:
            pass
    return dataclasses.replace(spec, tile=tile)


def panel_fits(tile: TileConfig, M: int, batch: int, a_kmajor: bool) -> bool:
    """Whether the heuristic keeps A's panel resident on `tile` (`_narrow_copies`) as far as the shape tells: a
    narrow mma.sync tile, M within one tile row, no batch, A mn-major in shared memory (KernelSpec checks the
    rest: shared memory, copies a thread). The panel applies an op on A once per CTA, so the schedule packs
    no A for its op there (plan/schedule.py)."""
    return (tile.mma and not (tile.wgmma or tile.tma or tile.sk_ctas) and min(tile.bm, tile.bn) <= 32
            and M <= tile.bm and batch == 1 and not a_kmajor)


def _chunked_epilogue(spec: KernelSpec) -> bool:
    """Whether the heuristic's TMA tile of 256 x 160 becomes persistent with a chunked epilogue (each warp's rows
    staged and stored through a region of the last stage, all 160 columns at once; TileConfig.chunked) and raster
    groups of 4: where D is a 2-byte type stored along n and no C is read. Measured on the H100 (round-robin tile
    probes, f16 GEMM of ~5000 square): persistent in groups of 4 0.92-0.95x the time of one-tile CTAs, groups of 8
    0.94-0.98x (the chunks then staged 64 rows at a time in A's stage); a 4-byte D, staged 32 rows at a time, ran
    no faster, nor did persistent 128 x 240 tiles (one-tile CTAs kept there). Its CTAs walk every other tile's
    k-tiles backwards (TileConfig.serpentine: each starts on the k-slabs the CTA's last tile ended on, which the
    wave's CTAs, in step, have just read): Nsight Compute had 1% fewer cycles and an L2 hit rate 2-3 points
    higher. Each raster group's columns are turned by one (gett.cuh's tile_coords), so a CTA's next tile is in
    the next column, whose B slabs a neighbouring CTA has just ended on (0.992-0.996x)."""
    t = spec.tile
    return (t.tma and (t.bm, t.bn) == (256, 160) and not t.persistent and not spec.read_c and spec.d.ncontig
            and not spec.d.run and ITEMSIZE[spec.d.dtype] == 2 and spec.K > 0 and spec.epi_cols == t.bn)


def _semiring_exprs(sr) -> tuple[str, str, str]:
    """(add, mul, zero) CUDA expressions of a semiring; () for the ordinary sum."""
    return () if sr is None else (sr.add, sr.mul, cuda_literal(sr.zero))
