"""Realigned D rows on the GPU (OutputSpec.realign: D's rows along n contiguous but of odd length, so at any
alignment; each staged row of the chunked epilogue stored as the aligned 16-byte words inside it and the values
around them one by one): against numpy float64, into NaN-poisoned outputs (every element written), partial tiles at
both edges, alpha, f16, bf16 and f32 D, and through einsum."""
from __future__ import annotations

import numpy as np
import pytest
from harness import run_forced, sm90

from gettpy.kernels.spec import TileConfig

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")


@pytest.mark.parametrize("ext,dts", [
    ({"i": 1700, "j": 4001, "k": 336}, ("f16", "f16")),   # (rows of 4001; 26 columns of 160, the last 1 wide)
    ({"i": 1021, "j": 2599, "k": 200}, ("f16", "f32")),
    ({"i": 777, "j": 1283, "k": 136}, ("bf16", "bf16")),
])
@pytest.mark.parametrize("alpha", [1.0, 0.75], ids=["alpha1", "scaled"])
def test_chunked_epilogue(rng, ext, dts, alpha):
    """The persistent TMA tile's chunked epilogue (each warp's 16 staged rows, 160 columns at a time), D of odd rows
    along n: realigned per row and chunk."""
    if not sm90():
        pytest.skip("TMA tiles need an sm_90 device")
    t = TileConfig(256, 160, 64, 4, wm=64, wn=160, cluster=2, group_m=4, persistent=True, chunked=True,
                   serpentine=True, wgmma=True, ws=True, tma=True)
    spec = run_forced(rng, "ik", "jk", "ij", ext, t, dts[0], dts[1], alpha=alpha)
    assert spec.epi_chunk and spec.d.realign and spec.d.vec == 1


@pytest.mark.parametrize("dtype", [np.float16])
@pytest.mark.parametrize("subs,shapes", [
    ("zik,zjk->zij", ((2, 1500, 768), (2, 3001, 768))),   # (batched, rows of 3001: the chunked TMA tile)
])
def test_einsum(rng, dtype, subs, shapes):
    """gettpy.einsum with a row-major output of odd row length: numpy's values; the core's D realigned."""
    from harness import dense_problem, extents_of

    import gettpy
    from gettpy.plan.schedule import make_schedule
    from gettpy.plan.tiles import kernel_spec

    xs = [rng.uniform(-1, 1, s).astype(dtype) for s in shapes]
    got = cp.asnumpy(gettpy.einsum(subs, *[cp.asarray(x) for x in xs])).astype(np.float64)
    ref = np.einsum(subs, *[x.astype(np.float64) for x in xs])
    tol = 2e-2 if dtype == np.float16 else 1e-5
    assert np.abs(got - ref).max() <= tol * np.abs(ref).max()
    dt = "f16" if dtype == np.float16 else "f32"
    core = make_schedule(dense_problem(subs, extents_of(subs, shapes), dt, "C")).core
    assert kernel_spec(core, False).d.realign
