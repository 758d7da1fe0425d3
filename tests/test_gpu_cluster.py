"""GPU tests of TMA tiles in clusters of two CTAs (TileConfig.cluster = 2): the two CTAs of a cluster take
tiles m, m + 1 of one column, each loads half of their B stage and multicasts it into both, and each
stage is released to both CTAs' loaders. Every case is checked against numpy float64 (run_forced): both
orientations of B (k-major: the box cut in rows; mn-major: the column atoms shared out), partial tiles in
m, n and k, an odd number of tile rows (the padding CTA computes nothing and stores nothing, also where M
is a whole number of tiles), a batch mode (rank-3 maps), f32 and bf16 outputs, C read with alpha / beta.
Clusters along n (TileConfig.cluster_n: tiles n, n + 1 of one row sharing A's stage) likewise, one-tile and
persistent (the serpentine walk over a partial last tile row), with the chunked epilogue along n and along m.
Skipped without an sm_90 device.
"""
from __future__ import annotations

import pytest
from test_gpu_wgmma import LAYOUTS, run_forced

pytestmark = pytest.mark.gpu


def _tile(bm, bn, stages=4, group_m=8, **kw):
    from gettpy.kernels.spec import TileConfig

    return TileConfig(bm, bn, 64, stages, wm=64, wn=bn, wgmma=True, ws=True, tma=True, cluster=2, group_m=group_m,
                      **kw)


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


@pytest.mark.parametrize("bm,bn,stages", TILES, ids=[f"{m}x{n}s{s}" for m, n, s in TILES])
@pytest.mark.parametrize("la,lb,ld", LAYOUTS, ids=["_".join(x) for x in LAYOUTS])
def test_cluster_n_orientations(la, lb, ld, bm, bn, stages, rng):
    """Clusters along n, every A/B orientation (A k-major: its box cut in rows; mn-major: its column atoms
    shared out); j = 1100 makes an odd number of tile columns on each tile (a padding CTA), i = 680 partial
    tile rows, partial k-tiles."""
    ext = {"i": 680, "j": 1100, "k": 712}
    spec = run_forced(rng, la, lb, ld, ext, _tile(bm, bn, stages, cluster_n=True), with_c=True, alpha=1.5,
                      beta=-0.5)
    tn = -(-spec.N // bn)
    assert spec.tile.cluster_n and tn % 2 == 1 and spec.grid == -(-spec.M // bm) * (tn + 1)


# (id, A, B, D modes, extents, tile kwargs, dtypes in / out, flip: D along the kernel's m, the chunked
#  epilogue's lines: rows of bn + pad or columns of bm + pad staged values that fit B's stage)
WALKS = [
    # (#12's tile: 21 tile rows of 256, the last of 16 rows, 12 pairs of columns of 160: 252 tiles over a grid
    #  of 132 CTAs, two rounds and a part; D along m staged 32 columns at a time in B's stage)
    ("256x160_dm", "ik", "kj", "ij", {"i": 5136, "j": 3840, "k": 200}, dict(bm=256, bn=160), ("f16", "f16"), True, 32),
    ("256x160_dn", "ik", "jk", "ij", {"i": 1300, "j": 5000, "k": 136}, dict(bm=256, bn=160), ("f16", "f16"), False, 32),
    ("128x240_dm_f32out", "ki", "kj", "ij", {"i": 3000, "j": 2900, "k": 328}, dict(bm=128, bn=240),
     ("f16", "f32"), True, 16),
    ("128x256_dn_bf16", "ki", "jk", "ji", {"i": 2600, "j": 2056, "k": 72}, dict(bm=128, bn=256), ("bf16", "bf16"),
     False, 32),
]


@pytest.mark.parametrize("name,la,lb,ld,ext,tile,dts,flip,lines", WALKS, ids=[w[0] for w in WALKS])
@pytest.mark.parametrize("chunked,stages", [(True, 4), (False, 2)], ids=["chunked", "staged"])
def test_cluster_n_persistent(name, la, lb, ld, ext, tile, dts, flip, lines, chunked, stages, rng):
    """Persistent clusters along n (serpentine rounds), D along n or m, the chunked epilogue in B's last stage
    (`lines` tile rows or columns a chunk) or not (D along m through a staging tile of its own, for which two
    stages leave room; along n straight from the registers), alpha and an op on D."""
    from gettpy import ops
    from gettpy.backends import gpu
    from gettpy.kernels.build import get_function

    t = _tile(**tile, stages=stages, group_m=4, cluster_n=True, persistent=True, chunked=chunked)
    spec = run_forced(rng, la, lb, ld, ext, t, dts[0], dts[1], alpha=0.75, flip=flip,
                      ops=(None, None, None, ops.leaky_relu(0.2)))
    assert spec.d.ncontig != flip and spec.epi_lines == lines
    grid = gpu.launch_grid(spec, get_function(spec))
    assert 0 < grid < spec.grid and grid % 2 == 0
