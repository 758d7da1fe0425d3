"""GPU tests of cp.async copies with an L2 prefetch size (TileConfig.l2_prefetch: PTX .level::prefetch_size).

The hint changes what the L2 fetches from DRAM, never the copied bytes: each tile is checked against numpy
float64 with partial tiles (zero-filled copies), k-major rows not aligned to the prefetch block (#2's
624-byte rows), 16-byte vectors and narrower 4- and 8-byte copies, on the mma, simt and warp-specialised
wgmma paths, persistent and not.
"""
from __future__ import annotations

import pytest
from test_gpu_wgmma import run_forced

pytestmark = pytest.mark.gpu

CASES = [  # (id, A, B, D modes, extents, tile kwargs, dtypes in/out, order)
    # #2's shape, smaller: B k-major rows of 312 f16 (624 bytes), M = 24 on a 32-row tile
    ("mma_kmajor_rows", "ik", "jk", "ij", {"i": 24, "j": 5000, "k": 312},
     dict(bm=32, bn=256, bk=64, stages=3, wm=32, wn=32, persistent=True), ("f16", "f16"), "C"),
    ("mma_partial", "ki", "kj", "ij", {"i": 200, "j": 333, "k": 100},
     dict(bm=128, bn=128, bk=32, stages=3, wm=64, wn=64), ("f16", "f32"), "F"),
    # (an odd inner extent: 2-element (4-byte) vectors of f16)
    ("mma_4byte_copies", "ik", "jk", "ij", {"i": 130, "j": 190, "k": 46},
     dict(bm=64, bn=64, bk=32, stages=2, wm=32, wn=32), ("f16", "f16"), "C"),
    ("simt_f32_stream_k", "ki", "kj", "ij", {"i": 700, "j": 520, "k": 1000},
     dict(bm=128, bn=64, bk=16, stages=4, tm=8, tn=8, min_blocks=3, sk_ctas=16), ("f32", "f32"), "F"),
    # (f32 rows of 6 elements: 8-byte vectors)
    ("simt_8byte_copies", "ik", "jk", "ij", {"i": 300, "j": 100, "k": 6},
     dict(bm=64, bn=64, bk=8, stages=2, tm=4, tn=4), ("f32", "f32"), "C"),
    ("ws_cp_async", "ik", "kj", "ji", {"i": 24, "j": 3000, "k": 312},
     dict(bm=128, bn=128, bk=64, stages=4, wm=64, wn=128, wgmma=True, ws=True, persistent=True), ("f16", "f16"),
     "F"),
]


@pytest.mark.parametrize("l2", [64, 128, 256])
@pytest.mark.parametrize("name,la,lb,ld,ext,tile,dts,order", CASES, ids=[c[0] for c in CASES])
def test_l2_prefetch_tiles(name, la, lb, ld, ext, tile, dts, order, l2, rng):
    from gettpy.kernels.spec import TileConfig

    spec = run_forced(rng, la, lb, ld, ext, TileConfig(**tile, l2_prefetch=l2), dts[0], dts[1], order=order,
                      with_c=True, alpha=1.5, beta=-0.5)
    assert spec.tile.l2_prefetch == l2
