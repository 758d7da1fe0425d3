"""GPU tests of tiles with A's panel resident in shared memory (TileConfig.resident_a): the whole of A (M <= bm
rows x K, zero-filled to whole k-tiles) is copied once per CTA and the stages hold B alone.

Each tile is checked against numpy float64 with C read (alpha, beta), on the mma and simt paths, persistent
(a CTA's later tiles reuse the panel), one tile per CTA and stream-K (a CTA's several shares reuse it), with
M short of the tile's rows, K not a multiple of bk, together with an L2 prefetch size, and with ops on A
(applied to the panel once), B and C.
"""
from __future__ import annotations

import pytest
from test_gpu_wgmma import run_forced

pytestmark = pytest.mark.gpu

CASES = [  # (id, A, B, D modes, extents, tile kwargs, dtypes in/out, order): M = i, A read m-contiguous
    # #2's shape, smaller: A of 24 x 312, B k-major rows of 624 bytes
    ("mma_persistent", "ik", "kj", "ji", {"i": 24, "j": 5000, "k": 312},
     dict(bm=32, bn=256, bk=64, stages=3, wm=32, wn=32, persistent=True), ("f16", "f16"), "F"),
    ("mma_partial_f32out", "ik", "jk", "ji", {"i": 20, "j": 777, "k": 100},
     dict(bm=32, bn=128, bk=32, stages=3, wm=32, wn=32), ("f16", "f32"), "F"),
    ("mma_stream_k", "ki", "jk", "ij", {"i": 32, "j": 1500, "k": 400},
     dict(bm=32, bn=128, bk=32, stages=3, wm=32, wn=32, sk_ctas=8), ("bf16", "bf16"), "C"),
    ("mma_prefetch", "ik", "kj", "ji", {"i": 24, "j": 3000, "k": 312},
     dict(bm=32, bn=256, bk=64, stages=4, wm=32, wn=32, persistent=True, l2_prefetch=256), ("f16", "f16"), "F"),
    ("simt_persistent", "ik", "kj", "ji", {"i": 24, "j": 4000, "k": 312},
     dict(bm=32, bn=128, bk=32, stages=3, tm=4, tn=4, persistent=True), ("f32", "f32"), "F"),
    ("simt_partial", "ki", "kj", "ij", {"i": 30, "j": 500, "k": 45},
     dict(bm=32, bn=64, bk=16, stages=2, tm=4, tn=4), ("f32", "f32"), "C"),
    ("simt_f64", "ik", "jk", "ji", {"i": 16, "j": 900, "k": 70},
     dict(bm=16, bn=64, bk=8, stages=3, tm=2, tn=4, persistent=True), ("f64", "f64"), "F"),
]


@pytest.mark.parametrize("name,la,lb,ld,ext,tile,dts,order", CASES, ids=[c[0] for c in CASES])
def test_resident_a_tiles(name, la, lb, ld, ext, tile, dts, order, rng):
    from gettpy.kernels.spec import TileConfig

    spec = run_forced(rng, la, lb, ld, ext, TileConfig(**tile, resident_a=True), dts[0], dts[1], order=order,
                      with_c=True, alpha=1.5, beta=-0.5)
    assert spec.tile.resident_a and not spec.a.kmajor and spec.M <= spec.tile.bm


@pytest.mark.parametrize("name", ["mma_persistent", "mma_partial_f32out", "mma_stream_k", "simt_partial"])
def test_resident_a_with_ops(name, rng):
    """An op on A is applied to the panel once (zero past K), ops on B and C as ever: leaky_relu on A, B and C."""
    from gettpy import ops
    from gettpy.kernels.spec import TileConfig

    _, la, lb, ld, ext, tile, dts, order = next(c for c in CASES if c[0] == name)
    op = ops.leaky_relu(0.1)
    spec = run_forced(rng, la, lb, ld, ext, TileConfig(**tile, resident_a=True), dts[0], dts[1], order=order,
                      with_c=True, alpha=1.5, beta=-0.5, ops=(op, op, op, None))
    assert spec.tile.resident_a and spec.op_a and spec.op_b
