"""GPU tests of persistent tiles (TileConfig.persistent): a grid of as many CTAs as are resident at once,
each walking several tiles with its cp.async pipeline running on from one tile into the next.

Every shape has more tiles than the grid has CTAs (asserted), so CTAs do walk tiles; each result is
checked against numpy float64 on all three paths (wgmma, warp-specialised wgmma with TMA or cp.async
loaders, mma.sync, simt), with partial tiles, a batch mode, C read with alpha/beta, in-smem ops on A and
B, and D's run-by-run epilogue.
"""
from __future__ import annotations

import pytest
from harness import run_forced

pytestmark = pytest.mark.gpu


def _walks(spec) -> None:
    """The persistent grid is smaller than the tile count: some CTA computes several tiles."""
    from gettpy.backends import gpu
    from gettpy.kernels.build import get_function

    grid = gpu.launch_grid(spec, get_function(spec))
    assert spec.tile.persistent and 0 < grid < spec.grid, (grid, spec.grid)


def _p(**kw):
    from gettpy.kernels.spec import TileConfig

    return TileConfig(**kw, persistent=True)


CASES = [  # (id, A, B, D modes, extents, tile kwargs, dtypes in/out, order)
    ("wgmma_kmajor", "ik", "jk", "ij", {"i": 2000, "j": 1300, "k": 200},
     dict(bm=128, bn=128, bk=64, stages=3, wm=64, wn=128, wgmma=True), ("f16", "f16"), "C"),
    ("wgmma_mnmajor_f32out", "ki", "kj", "ij", {"i": 1900, "j": 1410, "k": 136},
     dict(bm=128, bn=128, bk=64, stages=4, wm=64, wn=128, wgmma=True), ("f16", "f32"), "C"),
    ("mma_narrow", "ik", "kj", "ij", {"i": 120000, "j": 24, "k": 72},
     dict(bm=256, bn=32, bk=32, stages=3, wm=32, wn=32), ("f16", "f16"), "F"),
    ("mma_bf16", "ik", "jk", "ji", {"i": 3000, "j": 1500, "k": 40},
     dict(bm=128, bn=64, bk=32, stages=2, wm=64, wn=32), ("bf16", "bf16"), "C"),
    # (warp-specialised: the loading warpgroup runs on into the next tile while the computing ones store;
    #  i = 1960 leaves 40 rows in the last row of 128-row tiles (its second computing warpgroup issues no
    #  wgmma) and 168 in that of 256-row tiles (that warpgroup's second 64-row block issues none);
    #  C is read: the epilogue tile holds f32 values, so the tiles are ones whose two buffers fit in 227 KB)
    ("ws_tma", "ik", "jk", "ij", {"i": 2000, "j": 1300, "k": 200},
     dict(bm=128, bn=128, bk=64, stages=4, wm=64, wn=128, wgmma=True, ws=True, tma=True), ("f16", "f16"), "C"),
    ("ws_tma_mnmajor_f32out", "ki", "kj", "ij", {"i": 1960, "j": 1416, "k": 136},
     dict(bm=128, bn=128, bk=64, stages=4, wm=64, wn=128, wgmma=True, ws=True, tma=True), ("f16", "f32"), "C"),
    ("ws_tma_256rows", "ki", "jk", "ij", {"i": 1960, "j": 1416, "k": 336},
     dict(bm=256, bn=64, bk=64, stages=3, wm=64, wn=64, wgmma=True, ws=True, tma=True), ("bf16", "bf16"), "F"),
    ("ws_cp_async_narrow", "ik", "kj", "ji", {"i": 24, "j": 20000, "k": 312},
     dict(bm=128, bn=128, bk=64, stages=4, wm=64, wn=128, wgmma=True, ws=True), ("f16", "f16"), "F"),
    ("simt_f32", "ik", "kj", "ij", {"i": 2112, "j": 2180, "k": 24},
     dict(bm=64, bn=64, bk=8, stages=3, tm=4, tn=4), ("f32", "f32"), "F"),
    ("simt_f64", "ki", "jk", "ij", {"i": 1500, "j": 1300, "k": 30},
     dict(bm=64, bn=64, bk=8, stages=2, tm=4, tn=4), ("f64", "f64"), "C"),
]


@pytest.mark.parametrize("name,la,lb,ld,ext,tile,dts,order", CASES, ids=[c[0] for c in CASES])
def test_persistent_tiles(name, la, lb, ld, ext, tile, dts, order, rng):
    spec = run_forced(rng, la, lb, ld, ext, _p(**tile), dts[0], dts[1], order=order, with_c=True, alpha=1.5,
                      beta=-0.5)
    _walks(spec)


DIRECT = [  # (id, A, B, D modes, extents, tile kwargs, dtypes in/out, order, op on D)
    # (7 tile rows of 256 padded to 8 for the pairs; 25 columns of 160, B's third column atom half used)
    ("256x160_c2", "ik", "jk", "ij", {"i": 1700, "j": 4000, "k": 336},
     dict(bm=256, bn=160, bk=64, stages=4, wm=64, wn=160, cluster=2), ("f16", "f16"), "C", False),
    ("128x224_c2_mnmajor_f32out", "ki", "kj", "ij", {"i": 2000, "j": 3000, "k": 136},
     dict(bm=128, bn=224, bk=64, stages=4, wm=64, wn=224, cluster=2), ("f16", "f32"), "C", False),
    ("128x256_bf16_op", "ki", "jk", "ji", {"i": 2056, "j": 2600, "k": 200},
     dict(bm=128, bn=256, bk=64, stages=4, wm=64, wn=256), ("bf16", "bf16"), "F", True),
    # (#12's layout: A and B swapped, N = a with a last column of 16 (on the 16-wide wgmma) whose quads store 2 of
    #  their 20 vectors, M = b with 120 rows in the last tile row)
    ("256x160_c2_tail16", "ac", "cb", "ab", {"a": 3856, "b": 1400, "c": 200},
     dict(bm=256, bn=160, bk=64, stages=4, wm=64, wn=160, cluster=2), ("f16", "f16"), "F", False),
]


@pytest.mark.parametrize("name,la,lb,ld,ext,tile,dts,order,op", DIRECT, ids=[c[0] for c in DIRECT])
def test_persistent_direct_stores(name, la, lb, ld, ext, tile, dts, order, op, rng):
    """Persistent TMA tiles without C store their accumulators straight to D (KernelSpec.direct_d: no
    staging tile, four stages in shared memory), in clusters too (the pairs walk pairs of tiles); alpha
    and an op on D applied on the way. 2-byte D in vectors of 8 with bn a multiple of 32 goes through gett.cuh's
    QUAD_D (16-byte vectors regrouped across each quad of lanes), the f32 D as 8-byte pairs."""
    from gettpy import ops

    t = _p(**tile, wgmma=True, ws=True, tma=True)
    spec = run_forced(rng, la, lb, ld, ext, t, dts[0], dts[1], order=order, alpha=0.75,
                      ops=(None, None, None, ops.leaky_relu(0.2) if op else None))
    assert spec.direct_d and spec.smem_bytes > 190_000  # (four stages: with a staging tile three fit)
    assert spec.quad_d == (dts[1] != "f32")
    _walks(spec)


@pytest.mark.parametrize("alpha", [0.75, 1.0], ids=["scaled", "alpha1"])
@pytest.mark.parametrize("name,la,lb,ld,ext,tile,dts,order,op", DIRECT, ids=[c[0] for c in DIRECT])
def test_persistent_chunked_epilogue(name, la, lb, ld, ext, tile, dts, order, op, alpha, rng):
    """The same persistent TMA tiles with the chunked epilogue (TileConfig.chunked): each computing warp stages its
    rows, 16 at a time, through a region of its own in the A or B buffer of each tile's last stage, which goes back
    to the loaders after the stores; no epilogue tile (the smem of the one-tile kernel), partial tiles, clusters,
    alpha (the epilogue's unscaled path for alpha = 1) and an op on D."""
    import dataclasses

    from gettpy import ops

    t = _p(**tile, wgmma=True, ws=True, tma=True, chunked=True)
    spec = run_forced(rng, la, lb, ld, ext, t, dts[0], dts[1], order=order, alpha=alpha,
                      ops=(None, None, None, ops.leaky_relu(0.2) if op else None))
    # (columns whose 8 regions of 16 rows fit A's and B's stages: 256 x 64 and 160 x 64 halves hold 8 regions of
    #  16 x (160 + 8) halves; 128 x 64 halves and 224 x 64 hold them of 16 x (32 + 8) floats (224 and 112 do not
    #  fit, 224 has no other multiple of 16 dividing it); 128 x 64 and 256 x 64 halves of 16 x (128 + 8) halves)
    cols = {"256x160_c2": 160, "128x224_c2_mnmajor_f32out": 32, "128x256_bf16_op": 128, "256x160_c2_tail16": 160}[name]
    assert spec.epi_chunk and not spec.direct_d and spec.epi_cols == cols
    assert spec.smem_bytes == dataclasses.replace(spec, tile=dataclasses.replace(t, persistent=False,
                                                                                 chunked=False)).smem_bytes
    _walks(spec)


ALONG_M = [  # (id, A, B, D modes, extents, tile kwargs, dtypes in/out, order, op on D) on the swapped partition
    # (#12's other orientation: m = a, D's contiguous mode, 4 column atoms of A; B k-major in 160 exact rows; a last
    #  tile row of 16 (one live 64-row block), 17 columns, the last of 40; clusters of 2 (11 tile rows: a padding row))
    ("256x160_c2_tail", "ac", "cb", "ab", {"a": 2576, "b": 2600, "c": 200},
     dict(bm=256, bn=160, bk=64, stages=4, wm=64, wn=160, cluster=2), ("f16", "f16"), "F", False),
    # (no clusters, 3 stages, bf16, an op on D; a last tile row of 184: the second warpgroup's second block idle)
    ("256x160_bf16_op", "ac", "cb", "ab", {"a": 3000, "b": 3000, "c": 136},
     dict(bm=256, bn=160, bk=64, stages=3, wm=64, wn=160), ("bf16", "bf16"), "F", True),
    # (128-row tiles, 128 columns; the chunk is all of bn)
    ("128x128", "ac", "cb", "ab", {"a": 3000, "b": 1500, "c": 64},
     dict(bm=128, bn=128, bk=64, stages=4, wm=64, wn=128), ("f16", "f16"), "F", False),
    # (A k-major; M = 2570 and 2572: D's vectors along m of 2 and 4 values, 4- and 8-byte stores)
    ("128x128_vec2", "ca", "cb", "ab", {"a": 2570, "b": 1800, "c": 64},
     dict(bm=128, bn=128, bk=64, stages=4, wm=64, wn=128), ("f16", "f16"), "F", False),
    ("128x128_vec4", "ca", "cb", "ab", {"a": 2572, "b": 1800, "c": 64},
     dict(bm=128, bn=128, bk=64, stages=4, wm=64, wn=128), ("bf16", "bf16"), "F", True),
]


@pytest.mark.parametrize("alpha", [0.75, 1.0], ids=["scaled", "alpha1"])
@pytest.mark.parametrize("name,la,lb,ld,ext,tile,dts,order,op", ALONG_M, ids=[c[0] for c in ALONG_M])
def test_persistent_chunked_epilogue_along_m(name, la, lb, ld, ext, tile, dts, order, op, alpha, rng):
    """The chunked epilogue with D along m (2-byte D whose m is contiguous: #12's other orientation): each warp stages
    its 16 rows column by column (stmatrix .trans) and stores 16-byte vectors along m; partial tile rows and columns,
    clusters, alpha, an op on D, every value against float64."""
    from gettpy import ops

    t = _p(**tile, wgmma=True, ws=True, tma=True, chunked=True)
    spec = run_forced(rng, la, lb, ld, ext, t, dts[0], dts[1], order=order, alpha=alpha,
                      ops=(None, None, None, ops.leaky_relu(0.2) if op else None), swap=True)
    assert spec.epi_chunk and not spec.d.ncontig and spec.d.vec == {"128x128_vec2": 2, "128x128_vec4": 4}.get(name, 8)
    assert spec.a.kmajor == (la == "ca") and spec.b.kmajor  # (#12's: the 256-row side mn-major, the 160-row k-major)
    _walks(spec)


SERPENTINE = [  # (id, A, B, D modes, extents, tile kwargs, dtypes in/out)
    # (8 tile rows x 25 columns = 200 tiles on 132 CTAs: some walk two, the second backwards; K = 200: the partial
    #  k-tile comes first on the backward walk)
    ("256x160_c2_chunked", "ik", "jk", "ij", {"i": 1700, "j": 4000, "k": 200},
     dict(bm=256, bn=160, bk=64, stages=4, wm=64, wn=160, tma=True, cluster=2, chunked=True), ("f16", "f16")),
    ("128x128_tma_nmajor_f32out", "ki", "kj", "ij", {"i": 1960, "j": 2416, "k": 136},
     dict(bm=128, bn=128, bk=64, stages=4, wm=64, wn=128, tma=True), ("f16", "f32")),
    ("cp_async_narrow", "ik", "kj", "ji", {"i": 24, "j": 40000, "k": 312},
     dict(bm=128, bn=128, bk=64, stages=4, wm=64, wn=128), ("f16", "f16")),
]


@pytest.mark.parametrize("name,la,lb,ld,ext,tile,dts", SERPENTINE, ids=[c[0] for c in SERPENTINE])
def test_serpentine_k_walks(name, la, lb, ld, ext, tile, dts, rng):
    """Persistent warp-specialised tiles whose CTAs walk every other tile's k-tiles backwards (TileConfig.serpentine),
    TMA and cp.async loaders, clusters, a chunked epilogue, a partial last k-tile: against float64."""
    spec = run_forced(rng, la, lb, ld, ext, _p(**tile, wgmma=True, ws=True, serpentine=True), dts[0], dts[1],
                      order="C", alpha=0.75)
    assert spec.tile.serpentine
    _walks(spec)


def test_chunked_epilogue_rules(rng):
    """The chunked epilogue is refused with a C to read, and off persistent warp-specialised tiles; a cp.async
    warp-specialised tile (no TMA) takes it too."""
    import dataclasses

    from gettpy.errors import KernelError
    from gettpy.kernels.spec import TileConfig

    with pytest.raises(KernelError, match="chunked"):
        TileConfig(128, 128, 64, 4, wm=64, wn=128, wgmma=True, ws=True, chunked=True)
    t = _p(bm=128, bn=128, bk=64, stages=4, wm=64, wn=128, wgmma=True, ws=True, chunked=True)
    with pytest.raises(KernelError, match="chunked epilogue"):
        run_forced(rng, "ik", "jk", "ij", {"i": 700, "j": 900, "k": 136}, t, with_c=True, beta=1.0)
    spec = run_forced(rng, "ik", "jk", "ij", {"i": 1500, "j": 1900, "k": 136}, t)
    assert spec.epi_chunk and spec.epi_cols == 64 and not spec.tile.tma
    _walks(spec)
    t2 = dataclasses.replace(t, bm=256, wn=128)
    assert run_forced(rng, "ik", "kj", "ij", {"i": 1800, "j": 1704, "k": 72}, t2, "bf16", "f32").epi_cols == 64


def test_persistent_batch_ops_and_tensor_maps(rng):
    """A batch mode f (its offsets change from tile to tile), multi-mode maps, ops on A, B, C and D."""
    from gettpy import ops

    ext = {"a": 72, "b": 5, "c": 40, "d": 36, "e": 24, "f": 20}
    op = (ops.leaky_relu(0.1), ops.neg, ops.relu, ops.leaky_relu(0.2))
    spec = run_forced(rng, "aebf", "dfce", "abcdf", ext, _p(bm=128, bn=64, bk=32, stages=3, wm=64, wn=32),
                      "f16", "f32", order="F", with_c=True, alpha=0.75, beta=1.25, ops=op)
    assert spec.batch == 20
    _walks(spec)


def test_persistent_ws_batch_ops(rng):
    """Warp-specialised persistent TMA tiles over a batch mode (rank-3 maps; the batch changes from tile to
    tile), C read, ops on C and D."""
    from gettpy import ops

    ext = {"b": 8, "i": 392, "j": 520, "k": 152}
    tile = _p(bm=128, bn=128, bk=64, stages=4, wm=64, wn=128, wgmma=True, ws=True, tma=True)
    spec = run_forced(rng, "kib", "kjb", "ijb", ext, tile, "f16", "f32", order="F", with_c=True, alpha=0.75,
                      beta=1.25, ops=(None, None, ops.relu, ops.leaky_relu(0.2)))
    assert spec.tma_rank == 3 and spec.batch == 8
    _walks(spec)


def test_persistent_d_runs(rng):
    """ccsd_t #32's layout: D's run of 24 continues in the other dimension (run-by-run epilogue)."""
    ext = {"a": 24, "b": 16, "c": 16, "d": 24, "e": 16, "f": 16, "g": 24}
    spec = run_forced(rng, "degb", "gfac", "abcdef", ext, _p(bm=96, bn=128, bk=32, stages=2, wm=48, wn=64),
                      "f16", "f16", order="F")
    assert spec.d.run == 24
    _walks(spec)


def test_persistent_k0_scales_c(rng):
    """K = 0 (nothing to load): a persistent tile writes beta * C only and reads no input (it had loaded
    one k-tile of an empty A: an illegal address on the H100, test_gpu.py's test_gemm_shapes)."""
    ext = {"i": 4096, "j": 4096, "k": 0}
    spec = run_forced(rng, "ik", "kj", "ij", ext, _p(bm=96, bn=128, bk=32, stages=2, wm=48, wn=64), with_c=True,
                      alpha=1.0, beta=0.5)
    _walks(spec)


TAIL = [  # (id, A, B, D modes, extents, tile kwargs, dtypes in/out, order, wgmma columns of the last tile column)
    # (#12's tile: 25 columns of 160 + one of 16, B mn-major, clusters, a chunked epilogue, serpentine k-walks)
    ("256x160_c2_mnmajor_16", "ik", "kj", "ij", {"i": 1700, "j": 4016, "k": 200},
     dict(bm=256, bn=160, bk=64, stages=4, wm=64, wn=160, tma=True, cluster=2, chunked=True, serpentine=True),
     ("f16", "f16"), "C", 16),
    # (the same in raster groups of 2 tile rows: 4 groups, each group's 26 columns turned by one more than the last's,
    #  so the 16-wide column moves from CTA to CTA)
    ("256x160_c2_g2_turned_16", "ik", "kj", "ij", {"i": 1700, "j": 4016, "k": 200},
     dict(bm=256, bn=160, bk=64, stages=4, wm=64, wn=160, tma=True, cluster=2, chunked=True, serpentine=True,
          group_m=2), ("f16", "f16"), "C", 16),
    # (B k-major, 144 of 240 in the last column, a partial last tile row too)
    ("128x240_c2_kmajor_144", "ik", "jk", "ij", {"i": 1960, "j": 2544, "k": 136},
     dict(bm=128, bn=240, bk=64, stages=4, wm=64, wn=240, tma=True, cluster=2), ("f16", "f16"), "C", 144),
    # (cp.async loaders, 8 of 128 columns rounded up to 16, 256-row tiles with a partial last row, bf16)
    ("256x128_cp_async_8", "ki", "kj", "ji", {"i": 4000, "j": 1416, "k": 136},
     dict(bm=256, bn=128, bk=64, stages=3, wm=64, wn=128), ("bf16", "bf16"), "F", 16),
]


@pytest.mark.parametrize("name,la,lb,ld,ext,tile,dts,order,nt", TAIL, ids=[c[0] for c in TAIL])
def test_persistent_tail_column(name, la, lb, ld, ext, tile, dts, order, nt, rng):
    """A warp-specialised grid whose N is not a multiple of bn runs its last tile column on a narrower wgmma
    (KernelSpec.wg_tail_n, Cfg::WgmmaTail): mn-major and k-major B, TMA and cp.async loaders, clusters, the chunked
    epilogue, raster groups whose columns are turned group by group, partial tile rows, alpha; every value of D
    against float64 (the columns the narrow wgmma leaves out are past N; a wrong accumulator layout, a column dropped
    below N or a tile no CTA takes shows up here). The kernel's PTX holds the narrow wgmma, so the last column can
    take it."""
    from gettpy.kernels.build import ptx

    spec = run_forced(rng, la, lb, ld, ext, _p(**tile, wgmma=True, ws=True), dts[0], dts[1], order=order, alpha=0.75)
    assert spec.wg_tail_n == nt and spec.N % spec.tile.bn and spec.wg_tail_n < spec.tile.bn
    text = ptx(spec)
    assert f".m64n{nt}k16." in text and f".m64n{spec.tile.bn}k16." in text
    _walks(spec)
