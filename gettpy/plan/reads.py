"""How the kernel reads and writes a plan's operands on a tile: the OperandSpec of each input (smem orientation,
vector width, slot step), D's stride-1 runs, and the ops' CUDA expressions. Shared by the passes (plan/passes.py),
the lowering (plan/tiles.py) and the schedule's view of an input (plan/schedule.py).
"""
from __future__ import annotations

import dataclasses
import math

from ..kernels.spec import ITEMSIZE, OperandSpec, TileConfig, flat_refusal, realign_refusal
from ..layouts.descriptor import OperandLayout
from .plan import Plan


def _first_stride(layout: OperandLayout, dim: str) -> float:
    dm = layout.dim(dim)
    return abs(dm.strides[0]) if dm.strides else math.inf


def _op_expr(op) -> str:
    if op is None or op.is_identity or op.cuda.strip() == "x":
        return ""
    return op.cuda


def input_spec(layout: OperandLayout, mn: str, dtype: str, tile_mn: int, bk: int) -> OperandSpec:
    """How the kernel reads an input on a tile of `tile_mn` x `bk`: k-major with k vectors, mn-major with mn
    vectors (possibly along a non-leading term), or scalar gathers (also the schedule's view of an input)."""
    vk = min(layout.vector_width("k"), bk)
    vmn, vs = layout.vector_access(mn, tile_mn)  # possibly along a non-leading term (vs > 1)
    vs = vs if vmn > 1 else 1
    if vk > 1 and vk >= vmn:
        kmajor, vec, vs = True, vk, 1
    elif vmn > 1:
        kmajor, vec = False, vmn
    else:  # scalar gather: threads run along the smaller stride
        kmajor, vec, vs = _first_stride(layout, "k") <= _first_stride(layout, mn), 1, 1
    return OperandSpec(dtype, layout.dim(mn), layout.dim("k"), layout.dim("b"), vec, kmajor, vs)


def int8_read(layout: OperandLayout, mn: str, dtype: str, bk: int) -> OperandSpec:
    """How an int8 tensor-core tile reads an input: k-major in shared memory (its fragments come from ldmatrix of
    k-major tiles, its wgmma reads 8-bit operands k-major only), in vectors along k of the layout's width (up to 16
    values, at most bk)."""
    vec = max(1, min(layout.vector_width("k"), bk))
    return OperandSpec(dtype, layout.dim(mn), layout.dim("k"), layout.dim("b"), vec, True, 1)


def widest_vectors(plan: Plan) -> tuple[int, int]:
    """The widest vector each input offers the heuristic, A's and B's: along k or along its m / n."""
    return (max(plan.layout_a.vector_width("k"), plan.layout_a.vector_access("m")[0]),
            max(plan.layout_b.vector_width("k"), plan.layout_b.vector_access("n")[0]))


def flat_read(op: OperandSpec, tile: TileConfig, tile_mn: int, K: int) -> OperandSpec:
    """`op` read as flat k-tiles (OperandSpec.flat) on an mma.sync or simt `tile` (`tile_mn` of its rows a tile) where
    it would otherwise be read in 1- or 2-byte copies (the loader's synchronous element loads, plan/traffic.py's
    issue-bound reads) and each of its k-tiles is one contiguous run (kernels/spec.py's `flat_refusal`: the tile
    holds the whole mn extent, the k rows lie that extent apart), else `op`. The run is read in aligned words
    whatever its rows' alignment, so rows of odd length (M = 101 two-byte elements: 202 bytes) stream as aligned
    ones do.

    Not for copies of 4 bytes or more (already asynchronous): measured on the H100 against them, flat k-tiles of
    f32 inputs re-read by thousands of CTAs ran 1.07-1.24x slower on 7 of 11 shapes (the scatter into shared memory
    on every re-read), where 1- and 2-byte reads gained up to 2.2x and lost nowhere beyond noise."""
    if op.flat or op.vec * ITEMSIZE[op.dtype] >= 4 or tile.wgmma or tile.rows:
        return op
    flat = dataclasses.replace(op, kmajor=False, vec=1, vs=1, flat=True)
    return op if flat_refusal(flat, tile_mn, K) else flat


def realign_read(op: OperandSpec, tile: TileConfig, tile_mn: int, K: int, panel: bool = False) -> OperandSpec:
    """`op` read as realigned rows (OperandSpec.realign) on an mma.sync or simt `tile` (`tile_mn` of its rows a
    tile) where it would otherwise be read in 1- or 2-byte copies (the loader's synchronous element loads) and each
    smem row of the tile is one contiguous run (kernels/spec.py's `realign_refusal`), else `op`: rows of K = 141
    two-byte elements (282 bytes) then stream in aligned 16-byte words, without a padded copy. Not for copies of 4
    bytes or more (already asynchronous): measured on the H100, realigned rows ran 0.62-0.81x as fast as 4-byte
    copies and 0.41-0.68x as 8-byte ones on the same tiles (the shift on every k-tile), and 1.2-1.8x faster than
    2-byte element loads. Not for A's resident panel (`panel`: loaded once, its reads are not the loop's). Not where
    K fits one k-tile: a tile's element loads of its only k-tile then all issue together, and the shift still waits
    on every tile (measured on the H100 against element loads over 21 such shapes, 6-D CCSD(T) terms with K = 22-27
    and outer products: 0.87-1.08x, geomean 0.97)."""
    if (panel or K <= tile.bk or op.flat or op.realign or op.vec * ITEMSIZE[op.dtype] >= 4 or tile.wgmma or tile.ws
            or tile.rows):
        return op
    ra = dataclasses.replace(op, vec=1, vs=1, realign=True)
    return op if realign_refusal(ra, tile_mn, tile.bk) else ra


def word_read(op: OperandSpec, tile: TileConfig, tile_mn: int, K: int, panel: bool = False,
              realign: bool = True) -> OperandSpec:
    """`op` read in aligned 16-byte words where its own vectors are narrower: as flat k-tiles (`flat_read`), else
    as realigned rows (`realign_read`, unless `realign` is False), else `op`."""
    new = flat_read(op, tile, tile_mn, K)
    return new if new.flat or not realign else realign_read(op, tile, tile_mn, K, panel)


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


def _kmajor16(plan: Plan, dim: str, width: int, bk: int) -> bool:
    """Whether the input on the kernel's `dim` ("m": A, "n": B) is read k-major in 16-byte vectors by a tile
    `width` wide along `dim`, at k-tiles of `bk`."""
    layout, dtype = (plan.layout_a, plan.kernel_a.dtype) if dim == "m" else (plan.layout_b, plan.kernel_b.dtype)
    op = input_spec(layout, dim, dtype, width, bk)
    return op.kmajor and op.vec * ITEMSIZE[dtype] == 16


def _wide_kmajor(tile: TileConfig, plan: Plan, bk: int) -> bool:
    """Whether a narrow tile's wide side reads its input k-major in 16-byte vectors, at k-tiles of `bk`."""
    return _kmajor16(plan, "m", tile.bm, bk) if tile.bm > tile.bn else _kmajor16(plan, "n", tile.bn, bk)
