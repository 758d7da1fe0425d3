"""GPU tests of stream-K tiles (TileConfig.sk_ctas): the grid's last tiles are dealt out as equal shares
of their k-tiles to sk_ctas CTAs, and a tile cut between CTAs is summed by the CTA that finishes last.

Each case asserts that some tile really is cut (its k-tiles shared by several CTAs), then checks the
result against numpy float64 (run_forced): simt f32 / f64, mma.sync, wgmma and warp-specialised wgmma (TMA
and cp.async loaders) f16, partial tiles in m, n and k, a batch mode, C read with alpha / beta, ops, more
stream-K CTAs than k-iterations. The cut tiles' sums run in CTA order whichever CTA arrives last, so two
launches give the same bits.
"""
from __future__ import annotations

import numpy as np
import pytest
from harness import run_forced

pytestmark = pytest.mark.gpu


def _tile(sk, **kw):
    from gettpy.kernels.spec import TileConfig

    return TileConfig(**kw, sk_ctas=sk)


def _cut(spec) -> bool:
    """Whether some stream-K tile's k-tiles are shared by more than one CTA."""
    kt = -(-spec.K // spec.tile.bk)
    iters, g = spec.sk_tiles * kt, spec.sk_ctas
    begins = {c * iters // g for c in range(g)}
    return any(b % kt for b in begins if b < iters)


WS = dict(bk=64, stages=4, wgmma=True, ws=True)
CASES = [  # (id, A, B, D modes, extents, tile kwargs, sk_ctas, dtypes in/out, order)
    ("simt_f32_partial", "ik", "kj", "ij", {"i": 1000, "j": 700, "k": 1000},
     dict(bm=128, bn=128, bk=16, stages=3, tm=8, tn=8), 7, ("f32", "f32"), "F"),
    ("simt_f32_kmajor", "ik", "jk", "ji", {"i": 515, "j": 390, "k": 777},
     dict(bm=128, bn=64, bk=16, stages=3, tm=8, tn=4), 11, ("f32", "f32"), "C"),
    ("simt_f64", "ki", "jk", "ij", {"i": 300, "j": 260, "k": 530},
     dict(bm=64, bn=64, bk=8, stages=2, tm=4, tn=4), 13, ("f64", "f64"), "C"),
    ("mma_f16", "ik", "kj", "ij", {"i": 700, "j": 520, "k": 900},
     dict(bm=128, bn=128, bk=32, stages=3, wm=64, wn=64), 4, ("f16", "f16"), "C"),
    ("wgmma_f16_f32out", "ki", "jk", "ij", {"i": 900, "j": 650, "k": 1100},
     dict(bm=128, bn=128, bk=64, stages=3, wm=64, wn=128, wgmma=True), 9, ("f16", "f32"), "C"),
    # (warp-specialised, strides 16-byte aligned for TMA: i = 700 leaves 60 rows in the last tile row, whose
    #  second computing warpgroup then issues no wgmma; i = 904 on 256-row tiles, 136 rows: that warpgroup's
    #  second 64-row block)
    ("wgmma_ws_tma", "ik", "jk", "ij", {"i": 700, "j": 1100, "k": 1000},
     dict(bm=128, bn=256, wm=64, wn=256, tma=True, **WS), 7, ("f16", "f16"), "C"),
    ("wgmma_ws_tma_f32out", "ki", "kj", "ij", {"i": 904, "j": 600, "k": 1300},
     dict(bm=256, bn=128, wm=64, wn=128, tma=True, **WS), 7, ("f16", "f32"), "C"),
    ("wgmma_ws_cp_async", "ik", "jk", "ij", {"i": 500, "j": 700, "k": 904},
     dict(bm=128, bn=128, wm=64, wn=128, **WS), 7, ("f16", "f16"), "C"),
    ("more_ctas_than_iterations", "ik", "kj", "ij", {"i": 200, "j": 130, "k": 40},
     dict(bm=64, bn=64, bk=8, stages=3, tm=4, tn=4), 50, ("f32", "f32"), "F"),
]


@pytest.mark.parametrize("name,la,lb,ld,ext,tile,sk,dts,order", CASES, ids=[c[0] for c in CASES])
def test_stream_k(name, la, lb, ld, ext, tile, sk, dts, order, rng):
    spec = run_forced(rng, la, lb, ld, ext, _tile(sk, **tile), dts[0], dts[1], order=order, with_c=True,
                      alpha=1.5, beta=-0.5)
    assert spec.sk_tiles > 0 and _cut(spec), (spec.sk_tiles, spec.grid)


def test_ws_dead_warpgroup(rng):
    """Warp-specialised tiles without stream-K whose last tile row leaves a computing warpgroup's 64-row
    blocks wholly past M (no wgmma there): 128-row tiles with 40 rows left, 256-row ones with 160 (the
    second warpgroup's second block)."""
    from gettpy.kernels.spec import TileConfig

    for i, tile in ((680, TileConfig(bm=128, bn=256, wm=64, wn=256, tma=True, **WS)),
                    (928, TileConfig(bm=256, bn=128, wm=64, wn=128, tma=True, **WS)),
                    (680, TileConfig(bm=128, bn=128, wm=64, wn=128, **WS))):
        spec = run_forced(rng, "ik", "jk", "ij", {"i": i, "j": 520, "k": 712}, tile, "f16", "f16", order="C")
        assert spec.M == i and spec.M % tile.bm in (40, 160), spec


def test_stream_k_batch_ops_maps(rng):
    """A batch mode (its offsets change from tile to tile), multi-mode maps, ops on A, B, C and D."""
    from gettpy import ops

    ext = {"a": 72, "b": 5, "c": 40, "d": 36, "e": 24, "f": 20}
    op = (ops.leaky_relu(0.1), ops.neg, ops.relu, ops.leaky_relu(0.2))
    spec = run_forced(rng, "aebf", "dfce", "abcdf", ext, _tile(7, bm=64, bn=64, bk=16, stages=3, tm=4, tn=4),
                      "f32", "f32", order="F", with_c=True, alpha=0.75, beta=1.25, ops=op)
    assert spec.batch == 20 and spec.sk_tiles > 0 and _cut(spec)


def test_stream_k_deterministic(rng):
    """Two launches of a cut stream-K grid write the same bits (the shares are summed in CTA order)."""
    import cupy as cp

    from gettpy.backends import gpu
    from gettpy.plan.plan import make_plan
    from gettpy.plan.problem import ContractionProblem, TensorInfo
    from gettpy.plan.tiles import kernel_spec

    m, n, k = 640, 520, 3000
    a = cp.asarray(rng.uniform(-1, 1, (m, k)).astype(np.float32))
    b = cp.asarray(rng.uniform(-1, 1, (k, n)).astype(np.float32))
    ta = TensorInfo("A", ("i", "k"), (k, 1), "f32")
    tb = TensorInfo("B", ("k", "j"), (n, 1), "f32")
    td = TensorInfo("D", ("i", "j"), (n, 1), "f32")
    plan = make_plan(ContractionProblem(ta, tb, None, td, (("i", m), ("j", n), ("k", k))))
    spec = kernel_spec(plan, False, tile=_tile(17, bm=128, bn=128, bk=16, stages=3, tm=8, tn=8))
    assert _cut(spec)
    ka, kb = (b, a) if plan.part.swapped else (a, b)
    outs = []
    for _ in range(2):
        d = cp.full((m, n), cp.nan, dtype=cp.float32)
        gpu.launch(spec, int(ka.data.ptr), int(kb.data.ptr), 0, int(d.data.ptr), 1.0, 0.0)
        outs.append(cp.asnumpy(d))
    ref = a.get().astype(np.float64) @ b.get().astype(np.float64)
    assert np.abs(outs[0] - ref).max() <= 1e-4 * np.abs(ref).max()
    assert np.array_equal(outs[0].view(np.uint32), outs[1].view(np.uint32))


def test_stream_k_reduced_tccg20(rng):
    """#20's modes (multi-term maps on every dimension) at a reduced size, on its heuristic tile with
    stream-K."""
    ext = {"a": 24, "b": 20, "c": 24, "d": 20, "e": 18, "f": 20}
    spec = run_forced(rng, "aebf", "dfce", "abcd", ext,
                      _tile(23, bm=128, bn=128, bk=16, stages=3, tm=8, tn=8, min_blocks=2), "f32", "f32", order="F")
    assert spec.sk_tiles > 0 and _cut(spec)
