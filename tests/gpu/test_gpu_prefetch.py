"""GPU tests of cp.async copies with an L2 prefetch size (TileConfig.l2_prefetch: PTX .level::prefetch_size).

The hint changes what the L2 fetches from DRAM, never the copied bytes: each tile is checked against numpy
float64 with partial tiles (zero-filled copies), k-major rows not aligned to the prefetch block (#2's
624-byte rows), 16-byte vectors and narrower 4- and 8-byte copies, on the mma, simt and warp-specialised
wgmma paths, persistent and not.
"""
from __future__ import annotations

import pytest
from harness import PREFETCH_CASES as CASES
from harness import run_forced

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("l2", [64, 128, 256])
@pytest.mark.parametrize("name,la,lb,ld,ext,tile,dts,order", CASES, ids=[c[0] for c in CASES])
def test_l2_prefetch_tiles(name, la, lb, ld, ext, tile, dts, order, l2, rng):
    from gettpy.kernels.spec import TileConfig

    spec = run_forced(rng, la, lb, ld, ext, TileConfig(**tile, l2_prefetch=l2), dts[0], dts[1], order=order,
                      with_c=True, alpha=1.5, beta=-0.5)
    assert spec.tile.l2_prefetch == l2
