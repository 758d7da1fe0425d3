"""The ordered passes that refine the heuristic's tile (plan/heuristic.py) from the plan's layouts and the
target, and then the kernel spec, each stated in shapes and hardware and measured where it was added.

`TILE_PASSES` run in order on the heuristic tile (each `(tile, plan, ctx) -> tile`): an f32 simt tile of a shape
compute-bound at the FFMA rate goes to the f64 tensor cores (`_dmma_simt`, sm_90); narrow mma.sync tiles
over a k-major input take bk 64 (`_kmajor_lines`); a tile is cut to whole runs of D (`_run_aligned`);
write-bound one-k-tile and tall wgmma tiles become persistent (`_persistent`); the f32 narrow tile of a long K
becomes one wave of wide tiles (`_narrow_simt_wave`); a long narrow k-major GEMM takes the warp-specialised
wgmma tile (`_narrow_ws`, sm_90); the compute-bound wgmma tile becomes a TMA-fed one where both inputs have
tensor maps and no op (`_tma_tile`). `OPERAND_PASSES` then see the inputs' reads (`(tile, a, b, plan, ctx) ->
tile`): register caps for more CTAs per SM where the tile's estimated registers fit (`_min_blocks`,
`simt_registers`), stream-K for compute-bound simt grids (`_stream_k`) and the stages a cp.async-fed wgmma tile's
registers hold (`_wgmma_stages`, `wgmma_registers`). `SPEC_PASSES` run on the lowered spec
(`(spec, plan, read_c, ctx) -> spec`): the chunked persistent epilogue of the 256 x 160 TMA tile, or a persistent
tile made plain where its epilogue does not fit (`_epilogue_fit`); L2 prefetch, resident panels and fragment ops
on narrow tiles (`_narrow_copies`); the row-stream tile of the long narrow GEMM (`_row_stream`, sm_90).
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import KernelError
from ..kernels.spec import ITEMSIZE, SMEM_LIMIT, KernelSpec, OperandSpec, TileConfig, rows_split
from ..layouts.descriptor import OperandLayout
from .heuristic import SM_COUNT, WRITE_BOUND, _tma_cost, compute_bound, dmma_tile, tf32_mode
from .partition import NARROW_KMAJOR_K, NARROW_SIDE, NARROW_WIDE
from .plan import Plan
from .reads import _d_run, _kmajor16, _op_expr, _wide_kmajor, input_spec, widest_vectors
from .target import DEFAULT_TARGET, Target

#: stream-K (TileConfig.sk_ctas) for a compute-bound simt grid whose waves of CTAs are less full than this
#: on average (the last, partial wave idles part of the machine) ...
SK_WAVE_FILL = 0.95
#: ... and whose tiles have at least this many k-tiles to deal out
SK_MIN_KTILES = 32


def _dmma_simt(tile: TileConfig, plan: Plan, target: Target = DEFAULT_TARGET) -> TileConfig:
    """An f32 or f64 simt tile of a GEMM that is compute-bound at the FMA rate (`compute_bound(..., simt=True)`: f64's
    FMA rate is half f32's, its elements twice the bytes) runs on the f64 tensor cores (exact products of f32 values,
    or f64 ones, summed in f64) where the target has them:

    * at least 128 on each side and both inputs offering 16-byte vectors: `dmma_tile` (the heuristic takes that tile
      only past the tensor cores' far higher intensity, `choose_tile`; below it the DMMA tile ran 1.11-1.43x faster
      than the simt tiles on 18 real-code f32 shapes, K = 48-232, sides of 293-52441, batches up to 200, and
      0.90-1.13x, geomean 1.04x, on 14 of ~300 x 10^5, measured on the H100; for f64 inputs 1.5-2.4x faster than
      the f64 simt tiles on five shapes of 10^8-10^10 multiply-adds, measured on an H200);
    * f32 inputs otherwise (`_dmma_small`): a side over 32, one input at least offering 16-byte vectors, and the
      DMMA tile's padded flops at the f64 tensor cores' peak under the simt tile's at the FMA peak.

    Only the lowering's tile changes: the schedule's packs and split-K are planned as before."""
    p = plan.problem
    ta = plan.kernel_a.dtype
    if (tile.mma or tile.tm == 0 or p.semiring is not None or tf32_mode(p.compute, ta, plan.kernel_b.dtype) != 2
            or not compute_bound(plan.M, plan.N, plan.K, simt=True)):
        return tile
    vecs = widest_vectors(plan)
    if min(plan.M, plan.N) >= 128 and min(vecs) * ITEMSIZE[ta] >= 16:
        return dmma_tile(ta)
    if ta != "f32" or min(plan.M, plan.N) <= 32 or max(vecs) * ITEMSIZE[ta] < 16:
        return tile
    small = _dmma_small(plan.M, plan.N, vecs[0] * ITEMSIZE[ta] >= 16, vecs[1] * ITEMSIZE[plan.kernel_b.dtype] >= 16)
    padded = lambda t: math.ceil(plan.M / t.bm) * t.bm * math.ceil(plan.N / t.bn) * t.bn * (  # noqa: E731
        math.ceil(plan.K / t.bk) * t.bk)
    if padded(small) / target.peak("dmma") < padded(tile) / target.peak("simt32"):
        return small
    return tile


#: the f32 tiles of the f64 tensor cores below `dmma_tile`'s shapes: 4 warps of 32 x 32 (f64 accumulators: 64
#: registers), bk 16 in 4 stages, 3 CTAs an SM (ptxas: ~150 registers). Measured on the H100 on 17 real-code and
#: perturbed f32 shapes (batched GEMMs, attention, tall-skinny and Tucker products, sides of 42-516304, K 222-1693, one
#: input in 16-byte vectors): 1.03-1.45x faster than the simt tiles (two 0.95-0.98x); bk 16 / 4 stages 1.05-1.2x
#: faster than bk 32 / 3 on 14 of 20 shapes (one 0.86x); with both inputs in 4- or 8-byte pieces the simt tiles
#: stay (the DMMA tile measured 0.8-0.9x there)
DMMA_SMALL = TileConfig(64, 64, 16, 4, wm=32, wn=32, min_blocks=3)


def _dmma_small(M: int, N: int, wide_a: bool = True, wide_b: bool = True) -> TileConfig:
    """`DMMA_SMALL`, or where M or N is 65..128, that side (the larger where both are) one tile of 128, so that the
    other input is read once, not by two CTAs of which one computes mostly padding: 4 warps of 64 x 32 along it, 2
    CTAs an SM (ptxas: 228-250 registers, no spills; 8 warps of 32 x 32 spilled under 2 CTAs' cap and ran 1.1x
    slower, and 1.05-1.1x slower again at one CTA an SM without spills: H100, attention and batched shapes with
    a side of 80-128). Only where that side's input (A for M, B for N: `wide_a`, `wide_b`) has 16-byte vectors:
    a 128-row side read element by element needs more registers for its copies (ptxas spilled 36-40 bytes)."""
    mid = [x for x, wide in ((M, wide_a), (N, wide_b)) if 64 < x <= 128 and wide]
    if not mid:
        return DMMA_SMALL
    if M == max(mid) and wide_a and 64 < M <= 128:
        return TileConfig(128, 64, 16, 4, wm=64, wn=32, min_blocks=2)
    return TileConfig(64, 128, 16, 4, wm=32, wn=64, min_blocks=2)


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
    t = NARROW_WS_TILE
    b = input_spec(plan.layout_b, "n", plan.kernel_b.dtype, t.bn, t.bk)
    if b.vec * ITEMSIZE[b.dtype] != 16:  # (its loaders copy 16-byte vectors of B too: a B aligned to 8 bytes has none)
        return tile
    return t


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
def _tma_tile(plan: Plan, tile: TileConfig, sm_count: int = SM_COUNT) -> TileConfig:
    """The compute-bound wgmma tile as a TMA-fed warp-specialised tile with 4 stages where both inputs have
    tensor maps (measured on the H100 for compute-bound GEMMs: 128 x 256 1.05-1.13x faster than the 256x128x64
    / 4 cp.async tile; warp specialisation with cp.async loads was slower); the tile unchanged otherwise
    (`tma_tile` chooses the shape)."""
    if not (tile.wgmma and (tile.bm, tile.bn, tile.stages) == (256, 128, 4)):
        return tile
    layouts = {"m": (plan.layout_a, plan.kernel_a.dtype), "n": (plan.layout_b, plan.kernel_b.dtype)}

    def read(mn: str, tmn: int) -> OperandSpec:
        return input_spec(layouts[mn][0], mn, layouts[mn][1], tmn, 64)

    return tma_tile(plan.M, plan.N, plan.batch, read, 64, sm_count) or tile


def tma_tile(M: int, N: int, batch: int, read: Callable[[str, int], OperandSpec], bk: int,
             sm_count: int = SM_COUNT) -> TileConfig | None:
    """The TMA-fed warp-specialised wgmma tile (4 stages of bk = one 128-byte swizzle row) of a compute-bound GEMM,
    or None where an input has no tensor map on any TMA_SHAPES shape. `read(mn, tile_mn)`: how the tile reads A
    ("m") or B ("n") on a side of tile_mn; both must copy 16-byte vectors.

    The shape is the TMA_SHAPES one of least `_tma_cost`: whole waves of tiles that waste little of the
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
        g = geometry(op, tmn, bk, batch)
        return g if g is not None and (not whole or g.rows in (0, tmn)) else None

    best = None
    for bm, bn in TMA_SHAPES:
        new = TileConfig(bm, bn, bk, 4, wm=64, wn=bn, wgmma=True, ws=True, tma=True)
        ops = [read("m", bm), read("n", bn)]
        if any(op.vec * ITEMSIZE[op.dtype] != 16 or maps(op, tmn, whole) is None
               for op, tmn, whole in zip(ops, (bm, bn), (True, False), strict=True)):
            continue
        # (a cluster loads B in boxes of half the tile when B is k-major)
        if math.ceil(M / bm) % 2 == 0 and maps(ops[1], bn // 2, False) is not None:
            new = dataclasses.replace(new, cluster=2)
        # (an mn-major B's half-used last column atom as a box of its 32 columns: 1% faster and 1% less energy a
        #  call under the H100's power cap)
        if bn % 64 == 32 and not ops[1].kmajor:
            new = dataclasses.replace(new, half_atom=True)
        cost = _tma_cost(M, N, batch, bm, bn, new.cluster, sm_count)
        if best is None or cost < best[0]:
            best = (cost, new)
    return best[1] if best else None


#: an f32 simt thread's registers, estimated (`simt_registers`): a base, then per accumulator and per copy it
#: issues a k-tile. Fitted to ptxas on the 217 f32 simt kernels the benchmark sets plan: registers plus spilled
#: words fall within -18 and +35 of the estimate (of 64 to 255)
SIMT_REG_BASE, SIMT_REG_PER_ACC, SIMT_REG_PER_COPY = 30, 1.6, 2.6
#: registers a capped tile's estimate may pass its cap by: ptxas then spills some words, L1-resident, which cost
#: less than the CTAs the cap bought where the estimate passed it by up to 11 (measured on the H100)
SIMT_REG_SLACK = 12


def _copies(tile: TileConfig, a: OperandSpec, b: OperandSpec) -> int:
    """The copies a thread of `tile` issues for one k-tile of A and B (vectors of a.vec and b.vec values)."""
    return (math.ceil(tile.bm * tile.bk / (a.vec * tile.threads))
            + math.ceil(tile.bn * tile.bk / (b.vec * tile.threads)))


def simt_registers(tile: TileConfig, a: OperandSpec, b: OperandSpec) -> int:
    """The registers a thread of simt `tile` needs to run without spilling, estimated from its accumulators
    (tm x tn, each with its share of the fragments that feed it) and the copies it issues a k-tile (each keeps
    an mn offset and a predicate bit, and takes address arithmetic): element copies of a misaligned input cost
    a 128-thread 8 x 8 tile 20-24 copies a k-tile, against 6 in 16-byte vectors."""
    return math.ceil(SIMT_REG_BASE + SIMT_REG_PER_ACC * tile.tm * tile.tn + SIMT_REG_PER_COPY * _copies(tile, a, b))


def _register_cap(threads: int, ctas: int) -> int:
    """ptxas's register cap for `ctas` CTAs of `threads` on an SM (65536 registers, allocated 8 at a time)."""
    return min(255, 65536 // (threads * ctas) // 8 * 8)


def _fits(tile: TileConfig, a: OperandSpec, b: OperandSpec, ctas: int) -> bool:
    return simt_registers(tile, a, b) <= _register_cap(tile.threads, ctas) + SIMT_REG_SLACK


def _min_blocks(tile: TileConfig, a: OperandSpec, b: OperandSpec, heavy: bool = False) -> TileConfig:
    """A heuristic f32 simt tile with its registers capped for more CTAs per SM (TileConfig.min_blocks),
    where that measured faster on the H100: 64 x 64 for 4 (1-8%), 128 x 64 / 64 x 128 for 3 (1-5%), 128 x 128
    for 2 where neither input is read k-major (4%), else 128 x 64 for 2 (1-3%).

    A compute-bound (`heavy`) 128 x 128, 128 x 64 or 64 x 128 tile becomes 128 x 64 (or 64 x 128) with 128
    threads of 8 x 8, 3 CTAs per SM and 4 stages: the same FMAs per shared load, and 168 registers, with which
    ptxas puts the FFMAs' sources in different register banks far more often than under the 128-register cap
    of two 256-thread CTAs (the H100's dispatch stalls: 4-9% faster on square GEMMs of ~5000 with both inputs
    read mn-major; 0.98-1.06x, geomean 1.02x, on 18 real-code shapes with k-major inputs).

    Each cap applies only where the tile's estimated registers (`simt_registers`) fit under it, with
    SIMT_REG_SLACK to spare. Element copies (odd strides or extents) need many: the 128-thread 8 x 8 tile with
    20-24 copies a k-tile spilled 100-150 bytes a thread at 168 registers, and its 256-thread tile at 2 CTAs per
    SM ran 1.08-1.34x faster (8 shapes); with 18 copies (48-120 bytes spilled) the capped tile stayed 3-8%
    faster. A 256-thread tile whose estimate passes the cap of 3 CTAs takes 2 (1.01-1.24x on 11 shapes)."""
    if tile.mma or tile.tm == 0 or tile.threads != 256 or (a.dtype, b.dtype) != ("f32", "f32"):
        return tile  # (f64 tiles need their registers)
    n = {(64, 64): 4, (128, 64): 3, (64, 128): 3}.get((tile.bm, tile.bn), 0)
    if heavy and (tile.bm, tile.bn) in ((128, 128), (128, 64), (64, 128)):
        bm, bn = (tile.bm, tile.bn) if tile.bm != tile.bn else (128, 64)
        wide = TileConfig(bm, bn, 16, 4, tm=8, tn=8, group_m=tile.group_m, min_blocks=3)
        if _fits(wide, a, b, 3):
            return wide
        # (too many copies for 168 registers: the 256-thread tile at 128 x 64, 8-17% faster than 128 x 128 tiles
        #  spilling 88-112 bytes a thread)
        tile = dataclasses.replace(tile, bm=bm, bn=bn, tm=8 if bm == 128 else 4, tn=8 if bn == 128 else 4)
        n = 3
    if (tile.bm, tile.bn) == (128, 128) and not (a.kmajor or b.kmajor):
        return dataclasses.replace(tile, min_blocks=2)  # (spilling or not: its 128 x 64 form was slower)
    if (tile.bm, tile.bn) == (128, 128):
        # a k-major input: 128 x 64 with 2 CTAs per SM (1-3% faster on the H100)
        tile, n = dataclasses.replace(tile, bn=64, tn=4), 2
    while n > 1 and not _fits(tile, a, b, n):
        n -= 1
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
    from .tiles import kernel_spec  # (the row-stream tile lowered like any given tile)

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


def _epilogue_fit(spec: KernelSpec) -> KernelSpec:
    """The 256 x 160 TMA tile with a chunked persistent epilogue where `_chunked_epilogue` allows; else a
    persistent tile whose epilogue tile does not fit beside its pipeline made plain (with an f32 output it would
    fall back to the safe tile, 1.7x slower); the spec unchanged otherwise."""
    tile = spec.tile
    if _chunked_epilogue(spec):
        return dataclasses.replace(spec, tile=dataclasses.replace(tile, persistent=True, chunked=True, group_m=4,
                                                                  serpentine=True))
    if tile.persistent and spec.smem_bytes > SMEM_LIMIT:
        return dataclasses.replace(spec, tile=dataclasses.replace(tile, persistent=False))
    return spec


@dataclass(frozen=True, slots=True)
class PassContext:
    """What the passes know of the target: its SM count and whether it runs warpgroup MMA (sm_90)."""

    sm_count: int = SM_COUNT
    wgmma: bool = True


def _no_input_ops(plan: Plan) -> bool:
    return not (_op_expr(plan.ops[0]) or _op_expr(plan.ops[1]))


#: a thread's registers on a cp.async-fed wgmma tile (not warp-specialised), estimated (`wgmma_registers`): a base,
#: its accumulators, and per copy it issues a stage, for each stage in flight past the first. Fitted to ptxas on
#: f16 tiles of 128 x 64 with 16 and 24 copies a thread a stage at 4, 6 and 8 stages (147-210 registers where it
#: did not spill, within 1 of the estimate)
WG_REG_BASE, WG_REG_PER_COPY_STAGE = 19, 2
#: registers an estimate must leave under the 255 a thread may have
WG_REG_SLACK = 16


def wgmma_registers(tile: TileConfig, a: OperandSpec, b: OperandSpec, stages: int) -> int:
    """The registers a thread of cp.async-fed wgmma `tile` needs at `stages`, estimated (WG_REG_BASE, ...)."""
    return WG_REG_BASE + tile.bm * tile.bn // tile.threads + WG_REG_PER_COPY_STAGE * _copies(tile, a, b) * (stages - 1)


def _wgmma_stages(tile: TileConfig, a: OperandSpec, b: OperandSpec) -> TileConfig:
    """A cp.async-fed wgmma tile keeps as many of its stages (at least 3) as fit its estimated registers
    (`wgmma_registers`) in 255 less WG_REG_SLACK: each stage in flight holds the offsets of its copies, and inputs
    read in 4- or 8-byte copies issue 2-4 times the copies of 16-byte ones. Measured on the H100 on f16 split
    cores of long sums (K of 3 x 10^5 to 3 x 10^6 over outputs of about 80 x 80 and 100 x 110) and a 416 x 82
    core over three k modes, whose 8 stages spilled 52-224 bytes a thread: 1.07-1.21x with the stages this
    keeps; 9 cores it leaves alone ran within 1%."""
    if not tile.wgmma or tile.ws or tile.tma or tile.stages <= 3:
        return tile
    limit = 255 - WG_REG_SLACK
    stages = tile.stages
    while stages > 3 and wgmma_registers(tile, a, b, stages) > limit:
        stages -= 1
    return tile if stages == tile.stages else dataclasses.replace(tile, stages=stages)


#: the heuristic tile's passes, in order: (name, (tile, plan, ctx) -> tile)
TILE_PASSES: tuple[tuple[str, Callable], ...] = (
    ("dmma_simt", lambda t, plan, ctx: _dmma_simt(t, plan) if ctx.wgmma else t),
    ("kmajor_lines", lambda t, plan, ctx: _kmajor_lines(t, plan)),
    ("run_aligned", lambda t, plan, ctx: _run_aligned(t, plan.layout_d)),
    ("persistent", lambda t, plan, ctx: _persistent(t, plan.M, plan.N, plan.K)),
    ("narrow_simt_wave", lambda t, plan, ctx: _narrow_simt_wave(t, plan, ctx.sm_count)),
    ("narrow_ws", lambda t, plan, ctx: _narrow_ws(t, plan) if ctx.wgmma else t),
    ("tma_tile", lambda t, plan, ctx: _tma_tile(plan, t, ctx.sm_count) if _no_input_ops(plan) else t),
)
#: then, seeing how the kernel reads A and B on the tile: (name, (tile, a, b, plan, ctx) -> tile)
OPERAND_PASSES: tuple[tuple[str, Callable], ...] = (
    ("min_blocks", lambda t, a, b, plan, ctx: _min_blocks(t, a, b, compute_bound(plan.M, plan.N, plan.K, True))),
    ("stream_k", lambda t, a, b, plan, ctx: _stream_k(t, plan.M, plan.N, plan.K, plan.batch, ctx.sm_count)
     if plan.problem.semiring is None and compute_bound(plan.M, plan.N, plan.K, True) else t),
    ("wgmma_stages", lambda t, a, b, plan, ctx: _wgmma_stages(t, a, b)),
)
#: then on the lowered spec: (name, (spec, plan, read_c, ctx) -> spec)
SPEC_PASSES: tuple[tuple[str, Callable], ...] = (
    ("epilogue_fit", lambda spec, plan, read_c, ctx: _epilogue_fit(spec)),
    ("narrow_copies", lambda spec, plan, read_c, ctx: _narrow_copies(spec)),
    ("row_stream", lambda spec, plan, read_c, ctx: _row_stream(spec, plan, read_c) if ctx.wgmma else spec),
)
