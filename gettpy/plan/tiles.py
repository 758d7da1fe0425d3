"""Lowering: a Plan and its tile into the KernelSpec the GPU kernel is rendered from (`kernel_spec`).

The heuristic's tile (plan/heuristic.py `choose_tile`) is refined by the ordered passes of plan/passes.py
(`TILE_PASSES`, `OPERAND_PASSES`, `SPEC_PASSES`); a tile given by the caller or the autotuner is lowered as it
is. The lowering adds what the layouts decide (plan/reads.py): for each input, the smem orientation and vector
width (the dimension with the widest 16-byte-aligned stride-1 run, else a scalar gather along the smaller
stride), D's store direction, width and runs, the ops, read_c and 64-bit indexing.

The names of plan/heuristic.py, plan/reads.py and plan/passes.py are re-exported here (callers and tests import
them from this module).
"""
from __future__ import annotations

from dataclasses import replace

from ..dtypes import accumulate_type
from ..errors import KernelError
from ..kernels.spec import (
    ITEMSIZE,
    MAX_LOADS,
    MMA_DTYPES,
    KernelSpec,
    OutputSpec,
    TileConfig,
    loads_per_thread,
    store_realign_refusal,
)
from ..ops import cuda_literal
from .heuristic import (
    COMPUTE_BOUND_INTENSITY,
    DMMA_TILE,
    LONG_K,
    SIMT_COMPUTE_BOUND_INTENSITY,
    SIMT_SHORT_K,
    SIMT_TILE_COST,
    SM_COUNT,
    TALL,
    TMA_LOAD_WEIGHT,
    WRITE_BOUND,
    _short_side_bk,
    _short_side_k,
    _tma_cost,
    choose_tile,
    compute_bound,
    short_side,
    tf32_mode,
)
from .passes import (
    NARROW_PREFETCH,
    NARROW_WAVE_THREADS,
    NARROW_WS_TILE,
    OPERAND_PASSES,
    ROW_STREAM,
    SK_MIN_KTILES,
    SK_WAVE_FILL,
    SPEC_PASSES,
    TILE_PASSES,
    TMA_SHAPES,
    PassContext,
    _chunked_epilogue,
    _epilogue_fit,
    _kmajor_lines,
    _min_blocks,
    _narrow_copies,
    _narrow_simt_wave,
    _narrow_ws,
    _persistent,
    _row_stream,
    _run_aligned,
    _stream_k,
    _tma_tile,
    panel_fits,
)
from .plan import Plan
from .reads import (
    _d_run,
    _first_stride,
    _kmajor16,
    _op_expr,
    _store_run,
    _wide_kmajor,
    input_spec,
    widest_vectors,
    word_read,
)


def _over_loads(tile: TileConfig, a, b) -> bool:
    """Whether a loader thread of `tile` would copy more than MAX_LOADS vectors of input A or B a k-tile."""
    return any(loads_per_thread(tile, op, tmn) > MAX_LOADS for op, tmn in ((a, tile.bm), (b, tile.bn)))


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
    ctx = PassContext(sm_count, wgmma)
    if chosen:  # (1) the heuristic's tile, refined by the tile passes in order
        va, vb = widest_vectors(plan)
        tile = choose_tile(plan.M, plan.N, plan.K, plan.batch, ta.dtype, va, vb, sm_count, tb.dtype, p.compute,
                           p.semiring is not None, wgmma, dmma=min(va, vb) * ITEMSIZE[ta.dtype] >= 16)
        for _, refine in TILE_PASSES:
            tile = refine(tile, plan, ctx)
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
    # (2) the inputs' reads on the tile, and the passes that depend on them
    def reads(t: TileConfig):
        return (input_spec(plan.layout_a, "m", ta.dtype, t.bm, t.bk),
                input_spec(plan.layout_b, "n", tb.dtype, t.bn, t.bk))

    a, b = reads(tile)
    if chosen:
        for _, refine in OPERAND_PASSES:
            new = refine(tile, a, b, plan, ctx)
            if (new.bm, new.bn) != (tile.bm, tile.bn):  # (a new tile shape: the reads as it sees them)
                a, b = reads(new)
            tile = new
    # (1- and 2-byte inputs whose k-tiles or smem rows are contiguous runs: read in 16-byte words)
    a, b = word_read(a, tile, tile.bm, plan.K, panel=tile.resident_a), word_read(b, tile, tile.bn, plan.K)
    while chosen and not tile.rows and _over_loads(tile, a, b):
        # (the heuristic sized the tile by vectors its reads did not keep, say a stepped vector wider than the
        #  tile: a smaller k-tile the tile takes, until each loader thread's copies fit the predicate mask)
        smaller = None
        for bk in (tile.bk // 2, 32, 16, 8):  # (half, else the next k-tile the tile takes)
            if bk < tile.bk:
                try:
                    smaller = replace(tile, bk=bk)
                    break
                except KernelError:
                    continue
        if smaller is None:
            break
        tile = smaller
        a, b = reads(tile)
        a, b = word_read(a, tile, tile.bm, plan.K, panel=tile.resident_a), word_read(b, tile, tile.bn, plan.K)
    # (3) D's stores, C, indexing, the compute type: the spec
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
                          f"gettpy.plan.complex_paths.real_plan; kernel_spec takes real plans only)")
    for name, t in (("A", ta.dtype), ("B", tb.dtype), ("D", p.d.dtype)):
        if t not in ITEMSIZE:
            raise KernelError(f"operand {name}: no GPU kernel for dtype {t}")
    spec = KernelSpec(tile, plan.M, plan.N, plan.K, plan.batch, a, b, c, d, compute,
                      _op_expr(op_a), _op_expr(op_b), _op_expr(op_c) if read_c else "", _op_expr(op_d),
                      read_c, index64, _semiring_exprs(p.semiring), tf32)
    if chosen:  # (4) the spec passes in order
        for _, refine in SPEC_PASSES:
            spec = refine(spec, plan, read_c, ctx)
    if not spec.d.realign and not store_realign_refusal(spec.d, spec.tile, read_c):
        # (5) odd rows of D stored as aligned 16-byte words (OutputSpec.realign): whole sectors, no L2 read-back
        spec = replace(spec, d=replace(spec.d, realign=True))
    return spec


def _semiring_exprs(sr) -> tuple[str, str, str]:
    """(add, mul, zero) CUDA expressions of a semiring; () for the ordinary sum."""
    return () if sr is None else (sr.add, sr.mul, cuda_literal(sr.zero))


__all__ = [
    'kernel_spec', 'SM_COUNT', 'COMPUTE_BOUND_INTENSITY', 'SIMT_COMPUTE_BOUND_INTENSITY', 'TALL', 'LONG_K',
    'WRITE_BOUND', 'SIMT_SHORT_K', 'DMMA_TILE', 'SIMT_TILE_COST', '_short_side_k', '_short_side_bk', 'short_side',
    'compute_bound', 'tf32_mode', 'choose_tile', '_first_stride', '_op_expr', 'input_spec', '_d_run', '_store_run',
    '_kmajor16', '_wide_kmajor', 'SK_WAVE_FILL', 'SK_MIN_KTILES', '_run_aligned', '_kmajor_lines',
    'NARROW_WAVE_THREADS', '_narrow_simt_wave', '_narrow_ws', '_persistent', 'TMA_SHAPES', 'TMA_LOAD_WEIGHT',
    '_tma_cost', '_tma_tile', '_min_blocks', '_stream_k', 'ROW_STREAM', '_row_stream', 'NARROW_PREFETCH',
    'NARROW_WS_TILE', '_narrow_copies', 'panel_fits', '_chunked_epilogue', 'PassContext', 'TILE_PASSES',
    'OPERAND_PASSES', 'SPEC_PASSES', '_epilogue_fit',
]
