"""SIMT tiles that read k-major inputs KV k-steps at a time (one vector load of consecutive k a row): against numpy
float64 on forced simt tiles of 4- and 8-byte elements, every k-major / mn-major combination of A and B, K ending in
a partial k-tile (K % 4 != 0) or shorter than one vector, an op on A applied in shared memory before the vector
loads, C with alpha and beta. (The semiring tests cover the early stop at K inside a vector: test_gpu_semiring.)"""
from __future__ import annotations

import pytest
from harness import LAYOUTS, run_forced

from gettpy import ops
from gettpy.kernels.spec import TileConfig

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

TILES = {
    "f32-128x64": (TileConfig(128, 64, 16, 3, tm=8, tn=4), "f32"),
    "f32-64x128-8x8": (TileConfig(64, 128, 16, 4, tm=8, tn=8), "f32"),
    "f32-32x128": (TileConfig(32, 128, 16, 3, tm=2, tn=8), "f32"),
    "f64-64x64": (TileConfig(64, 64, 8, 3, tm=4, tn=4), "f64"),
}


@pytest.mark.parametrize("tile", sorted(TILES))
@pytest.mark.parametrize("layout", LAYOUTS, ids=["-".join(x) for x in LAYOUTS])
@pytest.mark.parametrize("k", [3, 37, 130])
def test_simt_k_vectors(rng, tile, layout, k):
    """Partial m, n and k tiles; the k-major inputs read KV k at a time (the kernel must see K = 3 and 37 end
    inside a vector of zero-filled slots)."""
    cfg, dt = TILES[tile]
    ext = {"i": 75, "j": 139, "k": k}
    spec = run_forced(rng, *layout, ext, cfg, dt, dt)
    assert spec.path == "simt"


@pytest.mark.parametrize("tile", ["f32-128x64", "f64-64x64"])
def test_simt_k_vectors_with_c_and_op(rng, tile):
    """Both inputs k-major, C read with alpha and beta, exp on A (applied to the stage before the vector loads; the
    zero-filled slots past K stay zero)."""
    cfg, dt = TILES[tile]
    ext = {"i": 131, "j": 70, "k": 45}
    run_forced(rng, "ik", "jk", "ij", ext, cfg, dt, dt, with_c=True, alpha=-0.5, beta=1.25)
    run_forced(rng, "ik", "jk", "ji", ext, cfg, dt, dt, ops=(ops.exp, None, None, None))
