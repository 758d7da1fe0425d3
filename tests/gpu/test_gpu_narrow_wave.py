"""GPU tests of the f32 one-wave narrow tile (plan/tiles.py `_narrow_simt_wave`): a long narrow f32 GEMM whose
wide input is read k-major runs on one wave of 24 x W simt tiles of two rows of 12 x 4 thread tiles, and the
result matches numpy float64 at every element: through the heuristic (TCCG #2's contraction at its size and
at ragged ones: a partial last tile, a partial last k-tile), and with the tile forced in both orientations
(the narrow side on the kernel's M or on its N), with C read under alpha / beta."""
from __future__ import annotations

import numpy as np
import pytest
from harness import run_forced

pytestmark = pytest.mark.gpu

CASES = [  # (id, extents a, b, c, d of abc-dca-bd: D is 24 x (a c), summed over d)
    ("tccg2", (312, 24, 296, 312)),
    ("ragged_tile_and_k", (133, 24, 130, 264)),  # 17290 wide: 91 tiles of 192, the last 10 wide; K = 16.5 x 16
    ("two_waves", (400, 24, 500, 300)),  # 200000 wide: 261 tiles of 768 (two waves), K = 18.75 x 16
]


@pytest.mark.parametrize("name,ext", CASES, ids=[c[0] for c in CASES])
def test_narrow_simt_wave_heuristic(name, ext):
    import cupy as cp

    import gettpy
    from gettpy.backends.gpu import _target
    from gettpy.plan import make_plan
    from gettpy.plan.problem import ContractionProblem, TensorInfo
    from gettpy.plan.tiles import kernel_spec

    ea, eb, ec, ed = ext
    sa, sb, sd = (ed, ec, ea), (eb, ed), (ea, eb, ec)
    rng = np.random.default_rng(sum(ext))
    ha = rng.uniform(-1, 1, sa).astype(np.float32)
    hb = rng.uniform(-1, 1, sb).astype(np.float32)
    a, b = cp.asarray(np.asfortranarray(ha)), cp.asarray(np.asfortranarray(hb))
    d = cp.full(sd, cp.nan, dtype=np.float32, order="F")

    def info(n, modes, shape):
        st = np.cumprod((1,) + shape[:-1]).tolist()
        return TensorInfo(n, tuple(modes), tuple(int(x) for x in st), "f32")
    p = ContractionProblem(info("A", "dca", sa), info("B", "bd", sb), None, info("D", "abc", sd),
                           tuple(sorted(zip("abcd", ext, strict=True))))
    plan = make_plan(p)
    t = kernel_spec(plan, False, sm_count=_target()[0]).tile
    assert plan.M == 24 and (t.bm, t.bk, t.stages, t.tm, t.tn, t.l2_prefetch) == (24, 16, 3, 12, 4, 128)

    gettpy.einsum("dca,bd->abc", a, b, out=d)
    ref = np.einsum("dca,bd->abc", ha.astype(np.float64), hb.astype(np.float64))
    np.testing.assert_allclose(cp.asnumpy(d).astype(np.float64), ref, rtol=0, atol=2e-6 * np.sqrt(ed))


@pytest.mark.parametrize("narrow_on", ["m", "n"])
def test_narrow_simt_wave_forced(narrow_on, rng):
    from gettpy.kernels.spec import TileConfig

    # 24 rows against 9000 k-major columns (a partial last tile of 320 and k-tile of 16), C read
    if narrow_on == "m":
        tile = TileConfig(24, 320, 16, 3, tm=12, tn=4, l2_prefetch=128)
        modes = ("ki", "jk", "ij")
    else:
        tile = TileConfig(320, 24, 16, 3, tm=4, tn=12, l2_prefetch=128)
        modes = ("jk", "ki", "ji")
    spec = run_forced(rng, *modes, {"i": 24, "j": 9000, "k": 300}, tile, "f32", "f32", order="C", with_c=True,
                      alpha=1.5, beta=-0.5)
    assert spec.tile == tile and (spec.M == 24) == (narrow_on == "m")
