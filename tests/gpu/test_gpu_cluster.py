"""GPU tests of TMA tiles in clusters of two CTAs (TileConfig.cluster = 2): the two CTAs of a cluster take
tiles m, m + 1 of one column, each loads half of their B stage and multicasts it into both, and each
stage is released to both CTAs' loaders. Every case is checked against numpy float64 (run_forced): both
orientations of B (k-major: the box cut in rows; mn-major: the column atoms shared out), partial tiles in
m, n and k, an odd number of tile rows (the padding CTA computes nothing and stores nothing, also where M
is a whole number of tiles), a batch mode (rank-3 maps), f32 and bf16 outputs, C read with alpha / beta.
Skipped without an sm_90 device.
"""
from __future__ import annotations

import pytest
from harness import LAYOUTS, run_forced

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


@pytest.mark.parametrize("dout", ["float16", "float32"])
def test_planner_traded_tma_core(dout, rng):
    """A row-major GEMM the planner runs the other way round (plan/orient.py: 256 x 160 tiles in clusters of two,
    D stored along the kernel's M) through einsum, checked against numpy float64."""
    import cupy
    import numpy as np
    from harness import assert_close, nonzero

    import gettpy
    from gettpy.plan.problem import ContractionProblem, TensorInfo
    from gettpy.plan.schedule import make_schedule
    from gettpy.plan.target import device_target
    from gettpy.plan.tiles import kernel_spec

    M, N, K = 5144, 5104, 1032
    target = device_target()
    p = ContractionProblem(TensorInfo("A", ("i", "k"), (K, 1), "f16"), TensorInfo("B", ("k", "j"), (N, 1), "f16"),
                           None, TensorInfo("D", ("i", "j"), (N, 1), "f16" if dout == "float16" else "f32"),
                           (("i", M), ("j", N), ("k", K)))
    s = make_schedule(p, target=target)
    spec = kernel_spec(s.core, False, sm_count=target.sm_count, wgmma=target.wgmma)
    if not (s.core.part.swapped and spec.tile.tma):
        pytest.skip(f"not traded on this device ({target.name}, {target.sm_count} SMs)")
    a = nonzero(rng, (M, K)).astype(np.float16)
    b = nonzero(rng, (K, N)).astype(np.float16)
    out = cupy.full((M, N), cupy.nan, dtype=dout)
    gettpy.einsum("ik,kj->ij", cupy.asarray(a), cupy.asarray(b), out=out)
    ref = cupy.asnumpy(cupy.asarray(a, dtype=cupy.float64) @ cupy.asarray(b, dtype=cupy.float64))
    assert_close(cupy.asnumpy(out), ref, np.dtype(dout))
