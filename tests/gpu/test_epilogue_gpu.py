"""The staged epilogue on the GPU: its row walk (gett_tile.cuh's store_rows: each thread keeps one vector position
along D's store dimension, a warp's row offsets shared by shuffles) on outputs whose modes interleave the tile's m
and n modes at odd extents (stride-1 runs of a few elements, partial tiles on both sides), with C, alpha, beta and
an op on D, on mma.sync and simt tiles of 128 and 256 threads, D stored along m and along n; and the generic walk
(vectors of 8, fewer in a staged row than a warp has lanes); against numpy float64."""
from __future__ import annotations

import pytest
from harness import run_forced

from gettpy import ops
from gettpy.kernels.spec import TileConfig

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

TILES = {
    "mma128x128": TileConfig(128, 128, 32, 4, wm=64, wn=32),
    "mma64x64": TileConfig(64, 64, 32, 3, wm=32, wn=32),
    "mma128x64": TileConfig(128, 64, 32, 4, wm=64, wn=32),
}
SIMT = {"simt64x64": TileConfig(64, 64, 16, 3, tm=4, tn=4)}
# (A, B, D modes in C order; extents): ccsd(t)-like outputs whose stride-1 runs are short and odd
CASES = [
    ("dfgb", "geac", "abcdef", {"a": 7, "b": 5, "c": 6, "d": 9, "e": 5, "f": 7, "g": 11}),
    ("gfac", "degb", "abcdef", {"a": 9, "b": 7, "c": 5, "d": 6, "e": 7, "f": 5, "g": 13}),
    ("aik", "kbj", "abij", {"a": 37, "b": 29, "i": 13, "j": 11, "k": 19}),
]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("tile", sorted(TILES))
def test_interleaved_outputs(rng, tile, case, order):
    """f16 in, f16 and f32 out: D alone; with C, alpha and beta; with relu on D."""
    ma, mb, md, ext = CASES[case]
    t = TILES[tile]
    for dout in ("f16", "f32"):
        spec = run_forced(rng, ma, mb, md, ext, t, "f16", dout, order)
        assert spec.d.run == 0  # (the runs do not divide the tile: the row walk, not the run-by-run one)
        run_forced(rng, ma, mb, md, ext, t, "f16", dout, order, with_c=True, alpha=-1.5, beta=0.75)
    run_forced(rng, ma, mb, md, ext, t, "f16", "f16", order, with_c=True, alpha=0.5, beta=-1.0,
               ops=(None, None, None, ops.relu))


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_interleaved_outputs_simt(rng, case, order):
    """f32 and f64 on a simt tile, with and without C."""
    ma, mb, md, ext = CASES[case]
    for dt in ("f32", "f64"):
        run_forced(rng, ma, mb, md, ext, SIMT["simt64x64"], dt, dt, order)
        run_forced(rng, ma, mb, md, ext, SIMT["simt64x64"], dt, dt, order, with_c=True, alpha=2.0, beta=-0.5)


@pytest.mark.parametrize("m,n", [(1000, 336), (72, 1000)])
def test_dense_vectors(rng, m, n):
    """A dense output stored in vectors of 8 (fewer in a staged row than a warp has lanes: the generic walk), whole
    and partial tiles, with C."""
    ext = {"i": m, "j": n, "k": 45}
    for md in ("ij", "ji"):
        spec = run_forced(rng, "ik", "kj", md, ext, TILES["mma128x128"], "f16", "f16", "C")
        assert spec.d.vec >= 2
        run_forced(rng, "ik", "kj", md, ext, TILES["mma128x128"], "f16", "f32", "C", with_c=True, alpha=1.25,
                   beta=0.5)
