"""GPU tests of TileConfig.half_atom: a TMA tile over an mn-major B whose width is 64 j + 32 loads its last column atom
as a box of the 32 columns it uses, through a second map of B (gettpy.kernels.tma.half_atom_geometry), and expects 4 KB
less a stage. Every case is checked against numpy float64 (run_forced, D poisoned first): with and without clusters (the
atoms shared out between the pair, B multicast), persistent walks with the chunked
epilogue, partial last tiles whose half atom is live (its columns past N zero-filled) or not, N a
whole number of tiles, a batch (rank-3 maps), bf16 and f32 outputs. Skipped without an sm_90 device.
"""
from __future__ import annotations

import pytest
from harness import run_forced

pytestmark = pytest.mark.gpu


def _tile(bm, bn, **kw):
    from gettpy.kernels.spec import TileConfig

    return TileConfig(bm, bn, 64, kw.pop("stages", 4), wm=64, wn=bn, wgmma=True, ws=True, tma=True, half_atom=True,
                      **kw)


CASES = [  # (id, A, B, D modes, extents, tile, dtypes in/out)
    # (#12's kind: 256 x 160 in clusters, persistent, chunked, serpentine; 24 whole columns and one of 56, whose
    #  only live atom comes through B's own map; 7 tile rows, the last of 164)
    ("256x160_c2_persistent", "ik", "kj", "ij", {"i": 1700, "j": 3896, "k": 200},
     dict(bm=256, bn=160, cluster=2, group_m=4, persistent=True, chunked=True, serpentine=True), ("f16", "f16")),
    # (a last column of 152: its half atom live, its columns past N (152-159) zero-filled)
    ("256x160_c2_partial_atom", "ki", "kj", "ij", {"i": 1000, "j": 2072, "k": 520},
     dict(bm=256, bn=160, cluster=2, group_m=4, persistent=True, chunked=True), ("f16", "f16")),
    # (no cluster, one tile a CTA, N a whole number of tiles, C read)
    ("128x160_grid", "ik", "kj", "ij", {"i": 520, "j": 1280, "k": 712}, dict(bm=128, bn=160), ("f16", "f32")),
    # (64 + 32 columns: the first atom is the half-used one)
    ("128x96", "ki", "kj", "ij", {"i": 704, "j": 1000, "k": 200}, dict(bm=128, bn=96, stages=3), ("bf16", "bf16")),
    # (192 + 32 columns in clusters: part 1 of the pair loads atom 1 and the half atom 3)
    ("128x224_c2", "ki", "jk", "ji", {"i": 1104, "j": 1800, "k": 264}, dict(bm=128, bn=224, cluster=2),
     ("f16", "f16")),
    # (a batch: rank-3 maps, the half atom's box one batch deep; a last column of 104)
    ("256x160_batch", "bik", "bkj", "bij", {"b": 3, "i": 300, "j": 904, "k": 136}, dict(bm=256, bn=160, cluster=2),
     ("f16", "f16")),
]


@pytest.mark.parametrize("name,la,lb,ld,ext,tile,dts", CASES, ids=[c[0] for c in CASES])
def test_half_atom(name, la, lb, ld, ext, tile, dts, rng):
    t = _tile(**tile)
    with_c = name == "128x160_grid"
    spec = run_forced(rng, la, lb, ld, ext, t, dts[0], dts[1], with_c=with_c, alpha=0.75, beta=0.5 if with_c else 0.0)
    g, gb = spec.tma_half_geometry, spec.tma_geometries[1]
    assert spec.tile.half_atom and not spec.b.kmajor and spec.tile.bn % 64 == 32
    assert g.dims == gb.dims and g.strides == gb.strides and g.box == (32, *gb.box[1:]) and gb.box[0] == 64
