"""GPU tests of tiles with A's panel resident in shared memory (TileConfig.resident_a): the whole of A (M <= bm
rows x K, zero-filled to whole k-tiles) is copied once per CTA and the stages hold B alone.

Each tile is checked against numpy float64 with C read (alpha, beta), on the mma and simt paths, persistent
(a CTA's later tiles reuse the panel), one tile per CTA and stream-K (a CTA's several shares reuse it), with
M short of the tile's rows, K not a multiple of bk, together with an L2 prefetch size, a flat panel (columns of
odd length read as one run), and with ops on A (applied to the panel once), B and C.
"""
from __future__ import annotations

import pytest
from harness import RESIDENT_CASES as CASES
from harness import run_forced

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("name,la,lb,ld,ext,tile,dts,order", CASES, ids=[c[0] for c in CASES])
def test_resident_a_tiles(name, la, lb, ld, ext, tile, dts, order, rng):
    from gettpy.kernels.spec import TileConfig

    spec = run_forced(rng, la, lb, ld, ext, TileConfig(**tile, resident_a=True), dts[0], dts[1], order=order,
                      with_c=True, alpha=1.5, beta=-0.5)
    assert spec.tile.resident_a and not spec.a.kmajor and spec.M <= spec.tile.bm
    assert spec.a.flat == (name == "mma_flat_panel")


@pytest.mark.parametrize("name", ["mma_persistent", "mma_partial_f32out", "mma_stream_k", "simt_partial",
                                  "mma_flat_panel"])
def test_resident_a_with_ops(name, rng):
    """An op on A is applied to the panel once (zero past K), ops on B and C as ever: leaky_relu on A, B and C."""
    from gettpy import ops
    from gettpy.kernels.spec import TileConfig

    _, la, lb, ld, ext, tile, dts, order = next(c for c in CASES if c[0] == name)
    op = ops.leaky_relu(0.1)
    spec = run_forced(rng, la, lb, ld, ext, TileConfig(**tile, resident_a=True), dts[0], dts[1], order=order,
                      with_c=True, alpha=1.5, beta=-0.5, ops=(op, op, op, None))
    assert spec.tile.resident_a and spec.op_a and spec.op_b
