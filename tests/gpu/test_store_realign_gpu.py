"""Realigned D rows on the GPU (OutputSpec.realign: D's rows along the store dimension contiguous but of odd length,
so at any alignment; each staged row stored as the aligned 16-byte words inside it and the values around them one
by one): against numpy float64, into NaN-poisoned outputs (every element written), on the staged epilogues of
mma.sync, simt and wgmma tiles and the chunked epilogue of the persistent TMA tile, stored along n and along m,
partial tiles at both edges, alpha and an op on D, batched, and through einsum."""
from __future__ import annotations

import numpy as np
import pytest
from harness import run_forced, sm90

from gettpy import ops
from gettpy.kernels.spec import TileConfig

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

TILES = {
    "mma": (TileConfig(128, 64, 32, 4, wm=64, wn=32), ("f16", "f16")),
    "mma_f32out": (TileConfig(64, 128, 32, 3, wm=32, wn=64), ("f16", "f32")),
    "bf16": (TileConfig(128, 64, 32, 4, wm=64, wn=32), ("bf16", "bf16")),
    "simt": (TileConfig(64, 64, 16, 3, tm=4, tn=4), ("f32", "f32")),
    "simt_128": (TileConfig(128, 64, 16, 4, tm=8, tn=8, min_blocks=3), ("f32", "f32")),
    "wgmma": (TileConfig(128, 128, 64, 3, wm=64, wn=128, wgmma=True), ("f16", "f16")),
}


@pytest.mark.parametrize("name", list(TILES))
@pytest.mark.parametrize("ld,ext", [
    ("mn", {"m": 301, "n": 517, "k": 72}),    # (rows of 517 along n; the last tile row and column partial)
    ("nm", {"m": 203, "n": 157, "k": 40}),    # (rows of 203 along m)
    ("mn", {"m": 77, "n": 9, "k": 48}),       # (rows shorter than a 16-byte word of f16)
])
def test_staged_epilogues(rng, name, ld, ext):
    tile, (din, dout) = TILES[name]
    spec = run_forced(rng, "mk", "kn", ld, ext, tile, din, dout)
    assert spec.d.realign and spec.d.vec == 1 and spec.d.ncontig == (ld == "mn")
    spec = run_forced(rng, "mk", "kn", ld, ext, tile, din, dout, alpha=-1.25,
                      ops=(None, None, None, ops.leaky_relu(0.2)))
    assert spec.d.realign and spec.op_d


def test_with_c_keeps_element_stores(rng):
    """C read (beta != 0): D keeps its element stores (realigned rows take no C), with the same values."""
    tile, (din, dout) = TILES["mma"]
    spec = run_forced(rng, "mk", "kn", "mn", {"m": 301, "n": 517, "k": 72}, tile, din, dout, with_c=True, alpha=0.5,
                      beta=-1.0)
    assert not spec.d.realign and spec.d.vec == 1


@pytest.mark.parametrize("ext,dts", [
    ({"i": 1700, "j": 4001, "k": 336}, ("f16", "f16")),   # (rows of 4001; 26 columns of 160, the last 1 wide)
    ({"i": 1021, "j": 2599, "k": 200}, ("f16", "f32")),
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


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("subs,shapes", [
    ("dab,cdk->abck", ((63, 21, 25), (13, 63, 33))),      # (rows of 13 x 33 = 429: D's n two modes, one run)
    ("zik,zkj->zij", ((7, 129, 96), (7, 96, 301))),        # (batched, rows of 301)
])
def test_einsum(rng, dtype, subs, shapes):
    """gettpy.einsum with row-major outputs of odd row length: numpy's values; the core's D realigned."""
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
