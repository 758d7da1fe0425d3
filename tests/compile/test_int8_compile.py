"""NVRTC compiles of the int8 tensor-core tile (mma.sync m16n8k32 in the GETT template) for sm_90, no GPU needed:
every pairing of int8 / uint8 inputs, D of 8 to 32 bits with and without C, both memory orders, odd M and N, k
vectors of 4 and 16 values, a batch, 64-bit offsets, every tile the heuristic lists and bk of 32, 64 and 128; no
register spills or stack, and registers that let the tile's threads launch. Skipped without cuda-bindings' NVRTC or
the CUDA headers."""
from __future__ import annotations

import pytest

pytest.importorskip("cuda.bindings.nvrtc")

from harness import einsum_layouts  # noqa: E402

from gettpy.kernels.spec import TileConfig  # noqa: E402
from gettpy.plan import heuristic  # noqa: E402
from gettpy.plan.simt import exact_kernel_spec  # noqa: E402


def _spec(sub, ext, dts, order="C", c=None, tile=None):
    """The integer kernel's spec of einsum `sub` on packed operands of `order` (the kernel's A = the first)."""
    return exact_kernel_spec(*einsum_layouts(sub, ext, dts, order, c), tile)


def _check(nvrtc, spec):
    assert spec.int8 and spec.tile.mma, spec.tile
    r = nvrtc.build(spec, "sm_90").report
    assert r.spill_stores == 0 and r.spill_loads == 0 and r.stack == 0, (spec.tile, r)
    assert 0 < r.registers <= 65536 // (spec.tile.threads * spec.tile.min_blocks), (spec.tile, r)


PAIRS = [("i8", "i8"), ("i8", "u8"), ("u8", "i8"), ("u8", "u8")]
OUTS = [("i8", None), ("i16", "i16"), ("i32", None), ("u32", "u8"), ("i32", "i32")]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("pair", PAIRS, ids=["-".join(p) for p in PAIRS])
def test_signedness_and_orders_compile(nvrtc, pair, order):
    # C order: A[i, k], B[j, k] row-major (k contiguous); F order: A[k, i], B[k, j] column-major (k contiguous)
    sub = "ik,jk->ij" if order == "C" else "ki,kj->ij"
    _check(nvrtc, _spec(sub, {"i": 3001, "j": 2999, "k": 1040}, (*pair, "i32"), order))


@pytest.mark.parametrize("d,c", OUTS, ids=[f"{d}-{c}" for d, c in OUTS])
def test_outputs_and_c_compile(nvrtc, d, c):
    _check(nvrtc, _spec("ik,jk->ij", {"i": 3001, "j": 2999, "k": 1036}, ("i8", "u8", d), c=c))  # (k vectors of 4)


@pytest.mark.parametrize("k", [1032, 1040])
def test_k_vectors_compile(nvrtc, k):
    spec = _spec("ik,jk->ij", {"i": 3001, "j": 2999, "k": k}, ("u8", "u8", "u32"))
    assert spec.a.vec == spec.b.vec == (8 if k % 16 else 16)
    _check(nvrtc, spec)


def test_batch_and_column_major_d_compile(nvrtc):
    _check(nvrtc, _spec("kib,kjb->ijb", {"b": 3, "i": 1031, "j": 1027, "k": 1024}, ("u8", "i8", "i16"), "F", c="i8"))


def test_64bit_offsets_compile(nvrtc):
    spec = _spec("ik,jk->ij", {"i": 70001, "j": 40003, "k": 1024}, ("i8", "i8", "i32"))
    assert spec.index64  # (D has over 2^31 elements)
    _check(nvrtc, spec)


TILES = [(bm, bn, bk, wm, wn) for bm, bn, wm, wn in heuristic._INT8_TILES for bk in (32, 64, 128)]


@pytest.mark.parametrize("t", TILES, ids=[f"{t[0]}x{t[1]}x{t[2]}" for t in TILES])
def test_every_tile_compiles(nvrtc, t):
    bm, bn, bk, wm, wn = t
    tile = TileConfig(bm, bn, bk, 3, wm=wm, wn=wn)
    _check(nvrtc, _spec("bik,bjk->bij", {"b": 2, "i": 777, "j": 555, "k": 1040}, ("i8", "u8", "i32"), tile=tile))


WS_TILES = [TileConfig(bm, bn, 128, stages, wm=64, wn=bn, wgmma=True, ws=True)
            for bm, bn, stages in heuristic.INT8_WS_SHAPES]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("pair", PAIRS, ids=["-".join(p) for p in PAIRS])
@pytest.mark.parametrize("tile", WS_TILES, ids=[f"ws{t.bm}x{t.bn}" for t in WS_TILES])
def test_wgmma_tiles_compile(nvrtc, tile, pair, order):
    """The warp-specialised int8 wgmma tiles (sm_90a), every signedness pairing, odd M and N, a batch, C read."""
    sub = "bik,bjk->bij" if order == "C" else "kib,kjb->ijb"
    spec = _spec(sub, {"b": 2, "i": 1031, "j": 999, "k": 1040}, (*pair, "i32"), order, c="i16", tile=tile)
    assert spec.tile.wgmma and spec.read_c
    r = nvrtc.build(spec, "sm_90a").report
    assert r.spill_stores == 0 and r.spill_loads == 0 and r.stack == 0, (spec.tile, r)
    assert not r.wgmma_serial, "ptxas serialised the wgmmas"
    assert 0 < r.registers <= 65536 // spec.tile.threads, (spec.tile, r)


TMA_TILES = [TileConfig(bm, bn, 128, 4, wm=64, wn=bn, wgmma=True, ws=True, tma=True, cluster=cl)
             for bm, bn, cl in ((128, 256, 1), (128, 256, 2), (256, 160, 2), (128, 208, 1))]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("tile", TMA_TILES, ids=[f"tma{t.bm}x{t.bn}c{t.cluster}" for t in TMA_TILES])
def test_tma_tiles_compile(nvrtc, tile, order):
    """The TMA-fed int8 wgmma tiles (sm_90a), alone and in clusters of two: odd N, a batch, C read; no spills, the
    wgmmas not serialised."""
    sub = "bik,bjk->bij" if order == "C" else "kib,kjb->ijb"
    spec = _spec(sub, {"b": 2, "i": 1024, "j": 999, "k": 1040}, ("i8", "u8", "i32"), order, c="i16", tile=tile)
    assert spec.tile.tma and spec.read_c
    r = nvrtc.build(spec, "sm_90a").report
    assert r.spill_stores == 0 and r.spill_loads == 0 and r.stack == 0, (spec.tile, r)
    assert not r.wgmma_serial, "ptxas serialised the wgmmas"


def test_tma_split_map_compiles(nvrtc):
    """B's n dimension as two stride terms (j of 96 over c: D[i, j, c] = A[i, k] B[j, c, k]) read through a split
    tensor map in boxes of 16 rows, in clusters of two: the heuristic's TMA tile compiles without spills."""
    from harness import einsum_layouts

    spec = exact_kernel_spec(*einsum_layouts("ik,jck->ijc", {"i": 3000, "j": 96, "c": 30, "k": 2048},
                                             ("i8", "i8", "i32")), wgmma=True, tma=True)
    assert spec.tile.tma and spec.tile.cluster == 2 and spec.tma_splits == (0, 96) and spec.tma_rows == (0, 16)
    r = nvrtc.build(spec, "sm_90a").report
    assert r.spill_stores == 0 and r.spill_loads == 0 and r.stack == 0, (spec.tile, r)
