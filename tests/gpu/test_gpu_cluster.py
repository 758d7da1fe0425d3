"""GPU tests of TMA tiles in clusters of two CTAs (TileConfig.cluster = 2): the two CTAs of a cluster take
tiles m, m + 1 of one column, each loads half of their B stage and multicasts it into both, and each
stage is released to both CTAs' loaders. Every case is checked against numpy float64 (run_forced): both
orientations of B (k-major: the box cut in rows; mn-major: the column atoms shared out), partial tiles in
m, n and k, an odd number of tile rows (the padding CTA computes nothing and stores nothing, also where M
is a whole number of tiles), a batch mode (rank-3 maps), f32 and bf16 outputs, C read with alpha / beta.
With TileConfig.share_a the pairs take tiles n, n + 1 of one row and share A instead, and an odd last column's
tiles pair along m and share B: the same orientations, odd and even column counts, a padding CTA in that last
column, persistent walks with the chunked epilogue. Skipped without an sm_90 device.
"""
from __future__ import annotations

import pytest
from harness import LAYOUTS, run_forced

pytestmark = pytest.mark.gpu


def _tile(bm, bn, stages=4, group_m=8, **kw):
    from gettpy.kernels.spec import TileConfig

    return TileConfig(bm, bn, 64, stages, wm=64, wn=bn, wgmma=True, ws=True, tma=True, cluster=2, group_m=group_m,
                      **kw)


def _share_a_grid(spec) -> int:
    """CTAs of a share_a grid: every row's pairs of columns, and an odd last column's tile rows rounded up to even."""
    tm, tn = -(-spec.M // spec.tile.bm), -(-spec.N // spec.tile.bn)
    return (tm * (tn - tn % 2) + tn % 2 * (tm + tm % 2)) * spec.batch


TILES = [(128, 256, 4), (256, 128, 4), (128, 128, 3), (128, 224, 4), (256, 160, 4)]


@pytest.mark.parametrize("bm,bn,stages", TILES, ids=[f"{m}x{n}s{s}" for m, n, s in TILES])
@pytest.mark.parametrize("la,lb,ld", LAYOUTS, ids=["_".join(x) for x in LAYOUTS])
def test_cluster_orientations(la, lb, ld, bm, bn, stages, rng):
    """Every A/B orientation; i = 680 makes an odd number of tile rows on 128- and 256-row tiles (a padding
    CTA), partial tiles in n and k, more k-tiles than stages."""
    ext = {"i": 680, "j": 520, "k": 712}
    spec = run_forced(rng, la, lb, ld, ext, _tile(bm, bn, stages), with_c=True, alpha=1.5, beta=-0.5)
    tm = -(-spec.M // bm)
    assert spec.tile.cluster == 2 and spec.grid == (tm + tm % 2) * -(-spec.N // bn)


@pytest.mark.parametrize("mnk,group_m", [((640, 512, 256), 8), ((384, 768, 1000), 2), ((128, 256, 64), 4),
                                         ((1000, 200, 520), 16)])
@pytest.mark.parametrize("dts", [("f16", "f32"), ("bf16", "bf16")])
def test_cluster_shapes_and_types(mnk, group_m, dts, rng):
    """Whole tiles with an odd number of tile rows (640 / 128 = 5: the padding CTA's rows are past M with
    no partial tile), one tile row pair, other raster groups (the pairs stay in one column)."""
    M, N, K = mnk
    for la, lb in (("ik", "kj"), ("ki", "jk")):
        spec = run_forced(rng, la, lb, "ij", {"i": M, "j": N, "k": K}, _tile(128, 256, 4, group_m), dts[0], dts[1])
        assert spec.M == M


def test_cluster_batch(rng):
    """A batch mode (rank-3 tensor maps; the padded tile rows counted per batch), column-major, C read."""
    ext = {"b": 3, "i": 392, "j": 270, "k": 152}
    spec = run_forced(rng, "kib", "kjb", "ijb", ext, _tile(128, 128, 3), "f16", "f32", order="F", with_c=True,
                      alpha=0.75, beta=1.25)
    assert spec.tma_rank == 3 and spec.batch == 3


SHARE_A_TILES = [(128, 256, 4), (256, 160, 4), (128, 128, 3)]


@pytest.mark.parametrize("bm,bn,stages", SHARE_A_TILES, ids=[f"{m}x{n}s{s}" for m, n, s in SHARE_A_TILES])
@pytest.mark.parametrize("la,lb,ld", LAYOUTS, ids=["_".join(x) for x in LAYOUTS])
def test_share_a_orientations(la, lb, ld, bm, bn, stages, rng):
    """Pairs along n sharing A (TileConfig.share_a), every A/B orientation (A's k-major rows cut in halves, its
    mn-major atoms shared out): j = 680 gives an odd number of tile columns (the last one's tiles pair along m,
    i = 680 an odd number of rows there: a padding CTA), partial tiles in m, n and k, C read."""
    ext = {"i": 680, "j": 680, "k": 712}
    spec = run_forced(rng, la, lb, ld, ext, _tile(bm, bn, stages, share_a=True), with_c=True, alpha=1.5, beta=-0.5)
    assert spec.tile.share_a and spec.grid == _share_a_grid(spec)
    assert spec.tma_geometries[0].box[1] == (bm // 2 if spec.a.kmajor else 64)


@pytest.mark.parametrize("mnk,group_m", [((640, 512, 256), 8), ((384, 768, 1000), 2), ((1000, 200, 520), 4),
                                         ((256, 256, 64), 2)])
@pytest.mark.parametrize("dts", [("f16", "f32"), ("bf16", "bf16")])
def test_share_a_shapes_and_types(mnk, group_m, dts, rng):
    """Pairs sharing A on whole tiles and an even number of columns (no last-column pairs), odd column counts with
    whole and partial rows, one tile row, one tile column (every pair along m), other raster groups."""
    M, N, K = mnk
    for la, lb in (("ik", "kj"), ("ki", "jk")):
        spec = run_forced(rng, la, lb, "ij", {"i": M, "j": N, "k": K}, _tile(128, 256, 4, group_m, share_a=True),
                          dts[0], dts[1])
        assert spec.M == M and spec.grid == _share_a_grid(spec)


@pytest.mark.parametrize("persistent", [False, True], ids=["grid", "persistent"])
def test_share_a_batch(persistent, rng):
    """A batch mode (rank-3 maps; each batch's pairs of columns, then its last column's pairs of rows), column-major,
    C read; persistent: the pairs walk pairs of tiles across the batches."""
    ext = {"b": 3, "i": 392, "j": 650, "k": 152}
    spec = run_forced(rng, "kib", "kjb", "ijb", ext, _tile(128, 128, 3, persistent=persistent, share_a=True), "f16",
                      "f32", order="F", with_c=True, alpha=0.75, beta=1.25)
    assert spec.tma_rank == 3 and spec.batch == 3 and spec.grid == _share_a_grid(spec)


SHARE_A_PERSISTENT = [  # (id, A, B modes, extents)
    # (#12's orientation, A k-major, B mn-major in three column atoms: 24 columns of 160 in 12 pairs a row, a last
    #  column of 56 whose 7 tile rows (the last of 164) pair along m with a padding CTA; 176 tiles)
    ("odd_columns", "ik", "kj", {"i": 1700, "j": 3896, "k": 200}),
    # (A mn-major, 16 columns (the last of 104) in 8 pairs a row, 11 rows (the last of 40), no last-column pairs)
    ("even_columns", "ki", "kj", {"i": 2600, "j": 2504, "k": 520}),
]


@pytest.mark.parametrize("name,la,lb,ext", SHARE_A_PERSISTENT, ids=[c[0] for c in SHARE_A_PERSISTENT])
def test_share_a_persistent_chunked(name, la, lb, ext, rng):
    """#12's kind of tile on pairs sharing A: 256 x 160, persistent (the grid walks the pairs; asserted), the chunked
    epilogue, serpentine k-walks, alpha, an op on D, partial tiles in m, n and k."""
    from gettpy import ops
    from gettpy.backends import gpu
    from gettpy.kernels.build import get_function

    t = _tile(256, 160, 4, 4, persistent=True, chunked=True, serpentine=True, share_a=True)
    spec = run_forced(rng, la, lb, "ij", ext, t, alpha=0.75, ops=(None, None, None, ops.leaky_relu(0.2)))
    grid = gpu.launch_grid(spec, get_function(spec))
    assert spec.epi_chunk and spec.grid == _share_a_grid(spec) and 0 < grid < spec.grid, (grid, spec.grid)
    assert spec.a.kmajor == (la == "ik") and not spec.b.kmajor
