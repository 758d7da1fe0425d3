"""GPU tests of the wgmma path (sm_90a warpgroup MMA from 128-byte-swizzled shared memory).

Every tile is forced (`kernel_spec(plan, read_c, tile=...)`) and launched directly, so each combination
of A and B orientation (K-major / MN-major in shared memory), tile shape, pipeline depth, partial tiles,
slot-permuted (interleaved) tiles and in-smem ops is checked against numpy float64, whatever the
heuristic would choose. Skipped without a device; the wgmma tests also skip on GPUs other than sm_90.
"""
from __future__ import annotations

import numpy as np
import pytest
from harness import (
    LAYOUTS,
    check,
    device_array,
    host_values,
    poisoned,
    rand,
    reference_modes,
    rounded,
    run_forced,
    sm90,
)

pytestmark = pytest.mark.gpu


def _wg(bm, bn, stages=3):
    from gettpy.kernels.spec import TileConfig

    return TileConfig(bm, bn, 64, stages, wm=64, wn=bn, wgmma=True)


TILES = [(128, 128, 4), (64, 64, 2), (128, 64, 3), (64, 128, 3), (128, 256, 3), (256, 128, 2)]


@pytest.mark.parametrize("bm,bn,stages", TILES, ids=[f"{m}x{n}s{s}" for m, n, s in TILES])
@pytest.mark.parametrize("la,lb,ld", LAYOUTS, ids=["_".join(x) for x in LAYOUTS])
def test_wgmma_orientations(la, lb, ld, bm, bn, stages, rng):
    ext = {"i": 200, "j": 264, "k": 136}  # partial tiles in m, n and k
    spec = run_forced(rng, la, lb, ld, ext, _wg(bm, bn, stages), with_c=True, alpha=1.5, beta=-0.5)
    assert spec.tile.wgmma


@pytest.mark.parametrize("mnk", [(128, 128, 64), (256, 256, 512), (64, 64, 16), (1, 77, 5), (300, 1, 200),
                                 (129, 65, 1000)])
@pytest.mark.parametrize("dts", [("f16", "f16"), ("f16", "f32"), ("bf16", "bf16"), ("bf16", "f32")])
def test_wgmma_shapes_and_types(mnk, dts, rng):
    M, N, K = mnk
    for la, lb in (("ik", "kj"), ("ki", "jk")):
        run_forced(rng, la, lb, "ij", {"i": M, "j": N, "k": K}, _wg(128, 128, 3), dts[0], dts[1])


def test_wgmma_fused_ops_and_batch(rng):
    from gettpy import ops

    ext = {"b": 3, "i": 130, "j": 70, "k": 150}
    run_forced(rng, "bki", "bjk", "ijb", ext, _wg(128, 64, 3), "f16", "f32", order="F", with_c=True,
               alpha=0.75, beta=1.25, ops=(ops.leaky_relu(0.1), ops.neg, ops.relu, ops.leaky_relu(0.2)))


def test_wgmma_tensor_layouts(rng):
    """Multi-mode m, n and k (layout maps with several terms), column-major, as in TCCG's #20."""
    ext = {"a": 24, "b": 20, "c": 18, "d": 22, "e": 12, "f": 10}
    spec = run_forced(rng, "aebf", "dfce", "abcd", ext, _wg(128, 128, 3), order="F")
    assert not spec.a.kmajor or not spec.b.kmajor


@pytest.mark.parametrize("dt_in,dt_out", [("f16", "f16"), ("bf16", "f32")])
def test_wgmma_interleaved(dt_in, dt_out, rng):
    """A slot-permuted (vs > 1) MN-major tile under the swizzle: #1's conflict, cut by the planner."""
    ext = {"a": 48, "b": 40, "c": 24, "d": 70}
    spec = run_forced(rng, "bda", "dc", "abc", ext, _wg(128, 64, 3), dt_in, dt_out, order="F", with_c=True,
                      alpha=1.0, beta=0.5)
    assert max(spec.a.vs, spec.b.vs) > 1, spec


def test_wgmma_heuristic_through_einsum(rng):
    """The heuristic picks wgmma for a large f16 GEMM on an sm_90 device, through gettpy.einsum."""
    import cupy as cp

    import gettpy
    from gettpy.backends import gpu

    if not sm90():
        pytest.skip("wgmma kernels need an sm_90 device")
    ha, hb = rounded(rand(rng, (1536, 512)), "f16"), rounded(rand(rng, (512, 1600)), "f16")
    a, b = cp.asarray(ha.astype(np.float16)), cp.asarray(hb.astype(np.float16))
    d = gettpy.einsum("ik,kj->ij", a, b)
    ref, scale = reference_modes("ik", "kj", "ij", ha, hb)
    check(cp.asnumpy(d).astype(np.float64), ref, scale, "f16", "einsum 1536x1600x512")
    assert any(s.tile.wgmma for s in gpu._SPECS.values())


def _ws(bm, bn, stages=4, tma=False):
    from gettpy.kernels.spec import TileConfig

    return TileConfig(bm, bn, 64, stages, wm=64, wn=bn, wgmma=True, ws=True, tma=tma)


# (224 / 208 wide: B's last column atom partly used; TMA_TILES' 256 x 160: registers moved by setmaxnreg)
WS_TILES = [(256, 128, 4), (128, 256, 4), (128, 128, 2), (128, 64, 3), (128, 224, 4), (128, 208, 3)]
TMA_TILES = WS_TILES + [(256, 160, 4)]


@pytest.mark.parametrize("bm,bn,stages", WS_TILES, ids=[f"{m}x{n}s{s}" for m, n, s in WS_TILES])
@pytest.mark.parametrize("la,lb,ld", LAYOUTS, ids=["_".join(x) for x in LAYOUTS])
def test_warp_specialised_orientations(la, lb, ld, bm, bn, stages, rng):
    """Warp-specialised tiles (a loading warpgroup, two computing ones, mbarriers per stage): every A/B
    orientation, partial tiles in m, n and k, more k-tiles than stages (the stages go round), C read."""
    ext = {"i": 296, "j": 264, "k": 712}  # (multiples of 8: the loaders copy 16-byte vectors)
    spec = run_forced(rng, la, lb, ld, ext, _ws(bm, bn, stages), with_c=True, alpha=1.5, beta=-0.5)
    assert spec.tile.ws and spec.tile.threads == 384


@pytest.mark.parametrize("mnk", [(256, 128, 64), (8, 72, 40), (520, 304, 1000), (64, 64, 16)])
@pytest.mark.parametrize("dts", [("f16", "f32"), ("bf16", "bf16")])
def test_warp_specialised_shapes_and_types(mnk, dts, rng):
    M, N, K = mnk
    for la, lb in (("ik", "kj"), ("ki", "jk")):
        run_forced(rng, la, lb, "ij", {"i": M, "j": N, "k": K}, _ws(256, 128), dts[0], dts[1])


def test_warp_specialised_tensor_maps_and_batch(rng):
    """Multi-mode m, n, k maps (TCCG #20's operands as packed: k modes fastest) and a batch mode,
    column-major, ops on C and the output."""
    from gettpy import ops

    ext = {"a": 24, "b": 20, "c": 18, "d": 22, "e": 16, "f": 10}
    run_forced(rng, "efab", "efcd", "abcd", ext, _ws(128, 128), order="F")
    ext = {"b": 3, "i": 130, "j": 270, "k": 152}
    run_forced(rng, "kib", "kjb", "ijb", ext, _ws(256, 128), "f16", "f32", order="F", with_c=True, alpha=0.75,
               beta=1.25, ops=(None, None, ops.relu, ops.leaky_relu(0.2)))


@pytest.mark.parametrize("bm,bn,stages", TMA_TILES, ids=[f"{m}x{n}s{s}" for m, n, s in TMA_TILES])
@pytest.mark.parametrize("la,lb,ld", LAYOUTS, ids=["_".join(x) for x in LAYOUTS])
def test_tma_orientations(la, lb, ld, bm, bn, stages, rng):
    """TMA-fed warp-specialised tiles: tensor-map boxes (64 x rows k-major, 64 x 64 per column atom
    mn-major) land in the swizzled stages the wgmmas read; partial tiles zero-filled by the TMA."""
    ext = {"i": 296, "j": 264, "k": 712}
    spec = run_forced(rng, la, lb, ld, ext, _ws(bm, bn, stages, tma=True), with_c=True, alpha=1.5, beta=-0.5)
    assert spec.tile.tma and spec.tma_rank == 2


SPLIT_TILES = [(104, 4, False, 1, 104), (104, 4, True, 1, 104), (208, 4, False, 2, 104), (128, 4, True, 1, 16),
               (128, 4, True, 2, 16)]


@pytest.mark.parametrize("bn,stages,persistent,cluster,rows", SPLIT_TILES,
                         ids=[f"{n}s{s}{'p' if p else ''}c{c}" for n, s, p, c, _ in SPLIT_TILES])
def test_tma_split_map(bn, stages, persistent, cluster, rows, rng):
    """TCCG #2's shape (abc-dca-bd, column-major): the big input's n = (a, c) read through a rank-3 tensor map,
    boxes of rows of a within one c: 104 or 208 of a's 208 (a cluster's halves of 104), or, where the tiles
    straddle values of c (128 rows, or a cluster's halves of 64), boxes of 16 rows (gcd(208, 128), gcd(208, 64));
    M = 24, so A's second column atom is past M and not loaded; with C, f32 out."""
    import dataclasses

    ext = {"a": 208, "b": 24, "c": 40, "d": 136}
    tile = dataclasses.replace(_ws(128, bn, stages, tma=True), persistent=persistent, cluster=cluster)
    spec = run_forced(rng, "dca", "bd", "abc", ext, tile, order="F")
    assert spec.tma_splits == (0, 208) and spec.tma_rows == (0, rows)
    run_forced(rng, "dca", "bd", "abc", ext, tile, "f16", "f32", order="F", with_c=True, alpha=0.5, beta=2.0)


@pytest.mark.parametrize("bm,stages,persistent", [(256, 4, True), (128, 6, True), (256, 4, False)])
def test_tma_split_boxes_on_a(bm, stages, persistent, rng):
    """#2's own transpose flag (the long narrow rule: the big input is the kernel's A, k-major, M = (a, c)):
    with a's 40 rows a slab, the tiles straddle values of c and the map's boxes hold gcd(40, bm) = 8 rows;
    the last tile runs past M (its boxes past the last c zero-filled), K = 264 a partial last k-tile;
    f16 out, then f32 out with C."""
    import dataclasses

    ext = {"a": 40, "b": 24, "c": 848, "d": 264}
    tile = dataclasses.replace(_ws(bm, 32, stages, tma=True), persistent=persistent)
    spec = run_forced(rng, "dca", "bd", "abc", ext, tile, order="F")
    assert spec.M == 40 * 848 and spec.tma_splits == (40, 0) and spec.tma_rows == (8, 0)
    run_forced(rng, "dca", "bd", "abc", ext, tile, "f16", "f32", order="F", with_c=True, alpha=0.5, beta=2.0)


def test_tma_straddled_slabs_through_einsum(rng):
    """The heuristic's TMA tile over a split map whose slabs its tiles straddle (C[a, c, b] = A[d, c, a] B[d, b],
    column-major, a = 72: the big input's 80-row cluster halves read as boxes of 8 rows), through gettpy.einsum
    on column-major arrays and a column-major `out`, checked against float64."""
    import gettpy
    from gettpy.backends import gpu

    if not sm90():
        pytest.skip("wgmma kernels need an sm_90 device")
    ext = {"a": 72, "b": 2048, "c": 32, "d": 1024}
    ha, hb = (rounded(rand(rng, tuple(ext[m] for m in t)), "f16") for t in ("dca", "db"))
    a, b = device_array(ha, "f16", "F"), device_array(hb, "f16", "F")
    d = gettpy.einsum("dca,db->acb", a, b, out=poisoned(tuple(ext[m] for m in "acb"), "f16", "F"))
    ref, scale = reference_modes("dca", "db", "acb", ha, hb)
    check(host_values(d, "f16"), ref, scale, "f16", "einsum dca,db->acb a = 72")
    assert any(s.tile.tma and 0 < s.tma_rows[1] < s.tile.bn // s.tile.cluster for s in gpu._SPECS.values())


@pytest.mark.parametrize("dts", [("f16", "f16"), ("bf16", "f32")])
def test_tma_batch_and_small_shapes(dts, rng):
    """A batch mode (rank-3 tensor maps), and shapes smaller than one box."""
    ext = {"b": 3, "i": 130, "j": 270, "k": 152}
    spec = run_forced(rng, "kib", "kjb", "ijb", ext, _ws(256, 128, tma=True), dts[0], dts[1], order="F",
                      with_c=True, alpha=0.75, beta=1.25)
    assert spec.tma_rank == 3
    run_forced(rng, "ik", "kj", "ij", {"i": 8, "j": 72, "k": 40}, _ws(128, 128, 2, tma=True), dts[0], dts[1])
