"""CPU tests of the row-stream tile (kernels/spec.py TileConfig.rows, `rows_split`, gett.cuh's Rows): the split of
the wide input's m map against every row's offset from the tensor's own strides, the units covering every row and
every element of D once, the heuristic's choice (plan/tiles.py `_row_stream`) and the refusals (the kernels are
compiled in tests/compile/test_compile_rows.py)."""
from __future__ import annotations

import numpy as np
import pytest
from harness import TCCG2_EXTENTS, colmajor_plan, rows_tile

from gettpy import ops
from gettpy.errors import KernelError
from gettpy.kernels.spec import TileConfig, rows_split
from gettpy.layouts.descriptor import build_dim_map
from gettpy.layouts.emulate import gett_offset
from gettpy.plan.tiles import kernel_spec


@pytest.mark.parametrize("extents,modes,k,want", [
    ((312, 296), (92352, 312), 312, 312),     # TCCG #2's A[d, c, a] with m = (a, c)
    ((7, 5, 9), (360, 2520, 40), 40, 35),     # i two terms, then j with stride K
    ((5, 9), (40, 200), 40, 1),               # m one stride-K term: P = 1
    ((312, 296), (312, 92352), 312, None),    # m = (c, a): j's stride is not K
    ((7, 5), (1, 41), 40, None),              # the last stride is not K
])
def test_rows_split_against_every_row(extents, modes, k, want):
    """rows_split's P, and for every m: offset(m) = offset(m % P) + (m // P) K, from the modes' own strides."""
    dm = build_dim_map(tuple(extents), tuple(modes))
    p = rows_split(dm, k)
    assert p == want
    if p is None:
        return
    g = np.arange(dm.extent)
    coords = np.unravel_index(g, extents, order="F")
    own = sum(c * s for c, s in zip(coords, modes, strict=True))  # (the tensor's own strides, not the map)
    np.testing.assert_array_equal(own, gett_offset(dm, g % p) + (g // p) * k)


@pytest.mark.parametrize("p,q,bm,run,grid", [(312, 296, 64, 8, 132), (133, 250, 64, 1, 132), (104, 75, 32, 8, 7),
                                             (1, 4000, 64, 1, 100), (96, 40, 128, 16, 3)])
def test_rows_units_cover_every_row_and_output_once(p, q, bm, run, grid):
    """gett.cuh's Rows walk, enumerated: CTA x's units x, x + grid, ...; unit u holds i in [ib run, + run) by j in
    [jb uc, + uc) (uc = bm / run, j-blocks first); its stage slot a uc + jj; its stores (n, jj) runs of i. Every row
    (i, j) of m = i + P j is loaded into exactly one slot of one unit, and each is stored once."""
    uc = bm // run
    nj = -(-q // uc)
    units = -(-p // run) * nj
    seen = np.zeros(p * q, dtype=int)
    for x in range(min(grid, units)):
        for t in range((units - 1 - x) // grid + 1):
            u = x + t * grid
            ib, jb = divmod(u, nj)
            slots = set()
            for a in range(min(run, p - ib * run)):
                for jj in range(min(uc, q - jb * uc)):
                    slot = a * uc + jj
                    assert slot < bm and slot not in slots
                    slots.add(slot)
                    seen[ib * run + a + p * (jb * uc + jj)] += 1
    assert (seen == 1).all()


def test_rows_heuristic():
    """#2 f16 and f16 -> f32 on sm_90: the row-stream tile (P = 312, units of 8 x 8 rows, 4 stages, K in 4 parts, D's
    16-byte vectors along a); not without wgmma (another device), nor for f32, nor with an op on A (the long narrow
    rule is off then), nor where the wide input's k is two stride terms."""
    for dout in ("f16", "f32"):
        spec = kernel_spec(colmajor_plan("dca", "bd", "abc", TCCG2_EXTENTS, "f16", dout), False)
        assert spec.tile == rows_tile() and spec.rows_p == 312 and spec.grid == 39 * 37 and spec.tile.threads == 512
        assert spec.rows_pitch == 624 and spec.rows_dvec == (8 if dout == "f16" else 4)
    assert not kernel_spec(colmajor_plan("dca", "bd", "abc", TCCG2_EXTENTS), False, wgmma=False).tile.rows
    assert not kernel_spec(colmajor_plan("dca", "bd", "abc", TCCG2_EXTENTS, "f32", "f32"), False).tile.rows
    assert not kernel_spec(colmajor_plan("dca", "bd", "abc", TCCG2_EXTENTS, op_a=ops.leaky_relu(0.1)), False).tile.rows
    split_k = kernel_spec(colmajor_plan("dae", "bde", "ab", {"a": 33792, "b": 24, "d": 16, "e": 20}), False).tile
    assert split_k.ws and not split_k.rows


def test_rows_refused():
    """KernelSpec names why a row-stream tile cannot run: rows that are not whole, B's fragments past the register
    budget, N wider than bn, too much shared memory; TileConfig refuses other options beside it."""
    with pytest.raises(KernelError, match="row-stream.*contiguous"):
        kernel_spec(colmajor_plan("dae", "bde", "ab", {"a": 33792, "b": 24, "d": 16, "e": 20}), False, tile=rows_tile())
    with pytest.raises(KernelError, match="registers"):
        kernel_spec(colmajor_plan("dca", "bd", "abc", TCCG2_EXTENTS), False, tile=rows_tile(parts=1))
    with pytest.raises(KernelError, match="wider than bn"):
        kernel_spec(colmajor_plan("dca", "bd", "abc", TCCG2_EXTENTS), False, tile=rows_tile(bn=16))
    with pytest.raises(KernelError, match="shared memory"):
        long_k = {"a": 312, "b": 24, "c": 296, "d": 1016}
        kernel_spec(colmajor_plan("dca", "bd", "abc", long_k), False, tile=rows_tile())
    for bad in ({"wgmma": True}, {"l2_prefetch": 128}, {"persistent": False}, {"rows": 3}, {"rows_run": 3}):
        kw = dict(bm=64, bn=24, bk=16, stages=4, wm=16, wn=24, persistent=True, rows=4, rows_run=8) | bad
        with pytest.raises(KernelError, match="row-stream"):
            TileConfig(**kw)


