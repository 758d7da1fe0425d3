"""GPU tests of the f64 tensor-core path for f32 inputs (KernelSpec.tf32 = 2, plan/tiles.py DMMA_TILE): the
result against numpy float64 at every element, to within f32's rounding of the exact sum (f64 products and
sums leave only the final rounding): through the heuristic (a compute-bound contraction with partial tiles
and k-tiles, inputs packed k first), with the tile
forced for the four k-major / m-n-major input layouts (an m / n-major input's fragments loaded from its m / n-major
tile one value at a time) under alpha / beta with C, with leaky_relu on A, B and D; and the split cores
(schedule.DMMA_SPLIT_TILE) of #14's contraction and of long sums over inputs whose rows run along m and n, within
their slices' f32 roundings."""
from __future__ import annotations

import numpy as np
import pytest
from harness import LAYOUTS, dense_problem, extents_of, run_forced, sm90

pytestmark = pytest.mark.gpu


def _need_sm90():
    if not sm90():
        pytest.skip("the f64 tensor-core path runs on sm_90 devices")


def _rounding_bound(ref):
    """|f32(x) - x| for the exact x: half an f32 ulp, relative 2^-24 (plus a hair for the f64 sum's own error)."""
    return np.abs(ref) * 2.0**-24 + 1e-12 * np.abs(ref).max()


@pytest.mark.parametrize("order", ["F"])
def test_dmma_heuristic_tccg20_family(order):
    """abcd-aebf-dfce (TCCG #20) at 900 x 990 x 1020: M, N, K all ragged against 128 x 64 x 32; the plan takes
    the f64 tensor cores and every element is f32's rounding of the float64 result."""
    _need_sm90()
    import cupy as cp

    import gettpy
    from gettpy.plan.schedule import make_schedule
    from gettpy.plan.tiles import kernel_spec
    from tccg.runner import case_problem
    from tccg.suite import Case

    ext = {"a": 30, "b": 30, "c": 30, "d": 33, "e": 30, "f": 34}
    case = Case(20, "ccsd", "abcd-aebf-dfce", ext)  # (TCCG's #20 at these extents)
    sched = make_schedule(case_problem(case, "f32", "f32", order))
    spec = kernel_spec(sched.core, False)
    assert spec.tf32 == 2 and spec.compute == "f64" and spec.a.kmajor and spec.b.kmajor
    rng = np.random.default_rng(20)
    ha = rng.uniform(-1, 1, [ext[m] for m in "aebf"]).astype(np.float32)
    hb = rng.uniform(-1, 1, [ext[m] for m in "dfce"]).astype(np.float32)
    a, b = cp.asarray(np.asarray(ha, order=order)), cp.asarray(np.asarray(hb, order=order))
    got = cp.asnumpy(gettpy.einsum("aebf,dfce->abcd", a, b)).astype(np.float64)
    ref = np.einsum("aebf,dfce->abcd", ha.astype(np.float64), hb.astype(np.float64))
    assert np.all(np.abs(got - ref) <= _rounding_bound(ref))


@pytest.mark.parametrize("eq,shapes", [
    ("zab,zbc->zac", ((7, 1203, 60), (7, 60, 1500))),     # (short K, batched: compute-bound at the FFMA rate only)
    ("abk,kc->abc", ((41, 57, 116), (116, 1300))),        # (B n-major, read where it lies)
])
def test_dmma_below_the_tensor_core_intensity(eq, shapes):
    """Shapes compute-bound at the FFMA rate but not at the tensor cores' (`passes._dmma_simt`), row-major with
    16-byte rows: the lowering takes DMMA_TILE, and every element is f32's rounding of the float64 result."""
    _need_sm90()
    import cupy as cp

    import gettpy
    from gettpy.plan.heuristic import DMMA_TILE
    from gettpy.plan.schedule import make_schedule
    from gettpy.plan.tiles import kernel_spec

    rng = np.random.default_rng(7)
    ha, hb = (rng.uniform(-1, 1, sh).astype(np.float32) for sh in shapes)
    got = cp.asnumpy(gettpy.einsum(eq, cp.asarray(ha), cp.asarray(hb))).astype(np.float64)
    ref = np.einsum(eq, ha.astype(np.float64), hb.astype(np.float64))
    assert np.all(np.abs(got - ref) <= _rounding_bound(ref))
    spec = kernel_spec(make_schedule(dense_problem(eq, extents_of(eq, shapes), "f32", "C")).core, False)
    assert spec.tile == DMMA_TILE and spec.tf32 == 2, spec.tile


@pytest.mark.parametrize("eq,shapes,want", [
    ("zkm,zkn->zmn", ((9, 223, 700), (9, 223, 1001)), (64, 64)),   # (B in element reads: rows of 1001 f32)
    ("mk,kn->mn", ((3001, 301), (301, 2000)), (64, 64)),            # (A in element reads, every tile edge ragged)
    ("ik,kj->ij", ((100, 400), (400, 30000)), (128, 64)),           # (M = 100 in one 128-row tile of 8 warps)
    ("zkm,zkn->zmn", ((5, 333, 1501), (5, 333, 96)), (64, 128)),    # (N = 96 in one 128-column tile)
])
def test_dmma_small_tiles(eq, shapes, want):
    """`passes._dmma_small`'s tiles through einsum: one input in 16-byte vectors, the other in element reads or a side
    of 65..128; the lowering takes the f64 tensor cores on a `want` tile and every element is f32's rounding of the
    float64 result."""
    _need_sm90()
    import cupy as cp

    import gettpy
    from gettpy.plan.schedule import make_schedule
    from gettpy.plan.tiles import kernel_spec

    spec = kernel_spec(make_schedule(dense_problem(eq, extents_of(eq, shapes), "f32", "C")).core, False)
    assert spec.tf32 == 2 and (spec.tile.bm, spec.tile.bn) == want, spec.tile
    rng = np.random.default_rng(11)
    ha, hb = (rng.uniform(-1, 1, sh).astype(np.float32) for sh in shapes)
    got = cp.asnumpy(gettpy.einsum(eq, cp.asarray(ha), cp.asarray(hb))).astype(np.float64)
    ref = np.einsum(eq, ha.astype(np.float64), hb.astype(np.float64))
    assert np.all(np.abs(got - ref) <= _rounding_bound(ref))


@pytest.mark.parametrize("la,lb,ld", LAYOUTS, ids=["_".join(x) for x in LAYOUTS])
@pytest.mark.parametrize("tile_id", ["heuristic", "128x128x16/4@64x32", "64x64x32/2@32x32"])
def test_dmma_forced_layouts(la, lb, ld, tile_id, rng):
    """The tile forced on every orientation of A and B (partial tiles in m, n and k), C read under alpha / beta,
    checked against float64 by run_forced."""
    _need_sm90()
    from gettpy.kernels.spec import TileConfig
    from gettpy.plan.tiles import DMMA_TILE

    tile = {"heuristic": DMMA_TILE, "128x128x16/4@64x32": TileConfig(128, 128, 16, 4, wm=64, wn=32),
            "64x64x32/2@32x32": TileConfig(64, 64, 32, 2, wm=32, wn=32)}[tile_id]
    spec = run_forced(rng, la, lb, ld, {"i": 200, "j": 264, "k": 136}, tile, "f32", "f32", with_c=True,
                      alpha=1.5, beta=-0.5)
    assert spec.tf32 == 2 and spec.tile == tile


def test_dmma_leaky_relu():
    """leaky_relu on A, B and the result of a compute-bound f32 contraction on the f64 path: against the op's
    numpy twin in float64."""
    _need_sm90()
    import cupy as cp

    import gettpy
    from gettpy.ops import as_op

    rng = np.random.default_rng(7)
    ha = rng.uniform(-1, 1, (1000, 1032)).astype(np.float32)  # (K a multiple of 4: B's pack is k-first)
    hb = rng.uniform(-1, 1, (1032, 960)).astype(np.float32)
    f = as_op("leaky_relu").numpy
    got = cp.asnumpy(gettpy.einsum("ik,kj->ij", cp.asarray(ha), cp.asarray(hb), ops=("leaky_relu",) * 2,
                                   op_out="leaky_relu")).astype(np.float64)
    ref = f(f(ha.astype(np.float64)) @ f(hb.astype(np.float64)))
    # (the ops' f32 roundings of A and B, then f32's of the result: far under an f32 sum's ~sqrt(K) ulps)
    assert np.abs(got - ref).max() <= 2e-7 * np.abs(ref).max()


@pytest.mark.parametrize("ext", [{"a": 150, "b": 140, "c": 64, "d": 200}, {"a": 200, "b": 190, "c": 96, "d": 160}])
def test_dmma_split_core(ext):
    """ab-cad-dcb (TCCG #14's contraction) at sizes whose schedule splits K (16 / 24 slices of c) onto the f64
    split tile (partial 64 x 64 tiles at 140 x 150 and 190 x 200): each slice's sum is f64's rounded to f32 in
    the workspace, then the slices are summed in f32: at most slices + 1 f32 roundings."""
    _need_sm90()
    import cupy as cp

    import gettpy
    from gettpy.plan.schedule import make_schedule
    from gettpy.plan.tiles import kernel_spec
    from tccg.runner import case_problem
    from tccg.suite import Case

    sched = make_schedule(case_problem(Case(14, "ccsd", "ab-cad-dcb", ext), "f32", "f32", "F"))
    assert sched.split_mode and kernel_spec(sched.core, False).tf32 == 2
    rng = np.random.default_rng(14)
    ha = rng.uniform(-1, 1, [ext[m] for m in "cad"]).astype(np.float32)
    hb = rng.uniform(-1, 1, [ext[m] for m in "dcb"]).astype(np.float32)
    got = cp.asnumpy(gettpy.einsum("cad,dcb->ab", cp.asarray(np.asfortranarray(ha)),
                                   cp.asarray(np.asfortranarray(hb)))).astype(np.float64)
    ref = np.einsum("cad,dcb->ab", ha.astype(np.float64), hb.astype(np.float64))
    # (each slice's rounding and the f32 sum of the slices: at most (slices + 1) roundings of sum |a b|)
    mag = np.einsum("cad,dcb->ab", np.abs(ha).astype(np.float64), np.abs(hb).astype(np.float64))
    assert np.all(np.abs(got - ref) <= (sched.core.batch + 1) * 2.0**-24 * mag)


@pytest.mark.parametrize("ext,vec", [({"m": 40, "n": 44, "k": 100000}, 4), ({"m": 37, "n": 45, "k": 100003}, 1)])
def test_dmma_long_k_mn_major(ext, vec):
    """km,kn->mn in numpy's order over a long k (a small output of 40 x 44, or 37 x 45 whose rows of 148 and 180
    bytes hold no 16-byte vectors): the split cores on the f64 tensor cores read both inputs m / n-major where they
    lie (vectors of `vec`), plus a tail slice where the slices do not divide k; within (slices + 2) f32 roundings of
    sum |a b| (each slice's, the tail's and the sum's)."""
    _need_sm90()
    import cupy as cp

    import gettpy
    from gettpy.plan.schedule import make_schedule
    from gettpy.plan.tiles import kernel_spec
    from tccg.runner import case_problem
    from tccg.suite import Case

    sched = make_schedule(case_problem(Case(0, "long_k", "mn-km-kn", ext), "f32", "f32", "C"))
    spec = kernel_spec(sched.core, False)
    assert sched.split_mode and spec.tf32 == 2 and sched.pack_a is None and sched.pack_b is None
    assert (spec.a.kmajor, spec.a.vec, spec.b.kmajor, spec.b.vec) == (False, vec, False, vec)
    rng = np.random.default_rng(ext["k"])
    ha = rng.uniform(-1, 1, (ext["k"], ext["m"])).astype(np.float32)
    hb = rng.uniform(-1, 1, (ext["k"], ext["n"])).astype(np.float32)
    got = cp.asnumpy(gettpy.einsum("km,kn->mn", cp.asarray(ha), cp.asarray(hb))).astype(np.float64)
    ref = ha.T.astype(np.float64) @ hb.astype(np.float64)
    mag = np.abs(ha).T.astype(np.float64) @ np.abs(hb).astype(np.float64)
    assert np.all(np.abs(got - ref) <= (sched.core.batch + 2) * 2.0**-24 * mag)


@pytest.mark.parametrize("la,lb,ld", LAYOUTS, ids=["_".join(x) for x in LAYOUTS])
@pytest.mark.parametrize("tile_id", ["heuristic", "64x64x16/3@32x32"])
def test_dmma_f64_inputs_forced_layouts(la, lb, ld, tile_id, rng):
    """f64 inputs on the f64 tensor cores (fragments read from f64 tiles one value each, gett_kernel.cuh's frag64_a /
    frag64_b) forced on every orientation of A and B, partial tiles in m, n and k, C read under alpha / beta:
    against float64 to f64's rounding (run_forced: relative 1e-12)."""
    _need_sm90()
    from gettpy.kernels.spec import TileConfig
    from gettpy.plan.heuristic import DMMA_F64_TILE

    tile = {"heuristic": DMMA_F64_TILE, "64x64x16/3@32x32": TileConfig(64, 64, 16, 3, wm=32, wn=32)}[tile_id]
    spec = run_forced(rng, la, lb, ld, {"i": 200, "j": 264, "k": 138}, tile, "f64", "f64", with_c=True,
                      alpha=1.5, beta=-0.5)
    assert spec.tf32 == 2 and spec.tile == tile and spec.a.dtype == "f64"


@pytest.mark.parametrize("eq,shapes,order", [
    ("ik,kj->ij", ((1031, 777), (777, 1100)), "C"),        # (B n-major: packed k first)
    ("zab,zbc->zac", ((5, 300, 260), (5, 260, 410)), "F"),  # (batched, column-major)
])
def test_dmma_f64_heuristic(eq, shapes, order):
    """A compute-bound f64 contraction takes the f64 tensor cores through the planner (`passes._dmma_simt`: twice the
    f64 FMA units' peak), and matches numpy's float64 einsum to f64's rounding of sums of K products."""
    _need_sm90()
    import cupy as cp

    import gettpy
    from gettpy.plan.heuristic import DMMA_F64_TILE
    from gettpy.plan.schedule import make_schedule
    from gettpy.plan.tiles import kernel_spec

    rng = np.random.default_rng(64)
    ha, hb = (np.asarray(rng.uniform(-1, 1, sh), order=order) for sh in shapes)
    got = cp.asnumpy(gettpy.einsum(eq, cp.asarray(ha, order=order), cp.asarray(hb, order=order)))
    ref = np.einsum(eq, ha, hb)
    mag = np.einsum(eq, np.abs(ha), np.abs(hb))
    assert np.all(np.abs(got - ref) <= 1e-13 * mag)
    spec = kernel_spec(make_schedule(dense_problem(eq, extents_of(eq, shapes), "f64", order)).core, False)
    assert spec.tile == DMMA_F64_TILE and spec.tf32 == 2 and spec.compute == "f64", spec.tile

