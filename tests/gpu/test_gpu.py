"""GPU tests of the GETT kernel: every check against a float64 numpy reference (skipped without a device).

The backend is called directly (`gettpy.backends.gpu.execute(make_plan(problem), ...)`), with the
ContractionProblem built from the arrays' real strides, so these tests exercise kernels/ and the
planner without the einsum front end. Outputs are poisoned with NaN before each run: an element the
kernel fails to write fails the check. bf16 tensors are held as uint16 bit patterns in CuPy arrays.

Tolerance: |got - ref| <= RTOL[out] * max(|alpha| * einsum(|A|, |B|) + |beta| * |C|), i.e. relative to the
magnitude of the summed terms (accumulation error grows with K, the final rounding with the value).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from harness import (
    NP,
    check,
    contract_and_check,
    device_array,
    host_values,
    poisoned,
    rand,
    reference_modes,
    rounded,
    run_contraction,
)

from tccg.suite import TABLE

pytestmark = pytest.mark.gpu

#: the TCCG suite (contraction 'C-A-B', extents in alphabetical order of the index letters)
SUITE = [(row[2], row[3]) for row in TABLE]


def reduce_extents(contraction: str, extents, limit: int = 600_000) -> tuple[int, ...]:
    """Shrink the extents (by 0.8, rounding up: odd sizes, partial tiles) until every tensor has <= limit elements."""
    c, a, b = contraction.split("-")
    letters = sorted(set(a + b + c))
    ext = dict(zip(letters, extents, strict=True))
    while max(math.prod(ext[m] for m in t) for t in (a, b, c)) > limit:
        ext = {m: (math.ceil(e * 0.8) if e > 6 else e) for m, e in ext.items()}
    return tuple(ext[m] for m in letters)


# ----------------------------------------------------------------------------------------------- TCCG
COMBOS = [("f16", "f16"), ("f16", "f32"), ("bf16", "bf16"), ("f32", "f32")]
TCCG_CASES = [pytest.param(con, ex, order, di, do, id=f"{i + 1:02d}_{con}_{order}_{di}_{do}")
              for order in ("F", "C") for di, do in COMBOS for i, (con, ex) in enumerate(SUITE)]
F64_CASES = [pytest.param(SUITE[i][0], SUITE[i][1], order, id=f"{i + 1:02d}_{SUITE[i][0]}_{order}_f64")
             for i in (0, 8, 12, 19, 30, 41) for order in ("F", "C")]


@pytest.mark.parametrize("con,extents,order,dt_in,dt_out", TCCG_CASES)
def test_tccg(con, extents, order, dt_in, dt_out, rng):
    c, a, b = con.split("-")
    letters = sorted(set(a + b + c))
    ext = dict(zip(letters, reduce_extents(con, extents), strict=True))
    contract_and_check(rng, a, b, c, ext, dt_in, dt_out, order, what=con)


@pytest.mark.parametrize("con,extents,order", F64_CASES)
def test_tccg_f64(con, extents, order, rng):
    c, a, b = con.split("-")
    letters = sorted(set(a + b + c))
    ext = dict(zip(letters, reduce_extents(con, extents, 200_000), strict=True))
    contract_and_check(rng, a, b, c, ext, "f64", "f64", order, with_c=True, alpha=0.5, beta=-1.25, what=con)


# ----------------------------------------------------------------------------------------------- odd shapes
ODD = (1, 2, 3, 5, 7, 13, 17, 31, 37, 61, 127)


def _random_case(seed: int):
    r = np.random.default_rng(seed)
    letters = "abcdefg"
    nm, nn, nk, nb = (int(r.integers(0, 3)), int(r.integers(0, 3)), int(r.integers(0, 3)), int(r.integers(0, 2)))
    pool = list(letters)
    r.shuffle(pool)
    m, pool = pool[:nm], pool[nm:]
    n, pool = pool[:nn], pool[nn:]
    k, pool = pool[:nk], pool[nk:]
    bt = pool[:nb]
    am = list(m + k + bt)
    bm = list(k + n + bt)
    dm = list(m + n + bt)
    for lst in (am, bm, dm):
        r.shuffle(lst)
    ext = {x: int(r.choice(ODD)) for x in m + n + k + bt}
    # keep tensors small
    while max(math.prod(ext[x] for x in t) if t else 1 for t in (am, bm, dm)) > 300_000:
        big = max(ext, key=ext.get)
        ext[big] = max(1, ext[big] // 3)
    return "".join(am), "".join(bm), "".join(dm), ext


RANDOM_CASES = [pytest.param(s, dt, id=f"seed{s}_{dt[0]}_{dt[1]}")
                for s in range(24) for dt in (("f16", "f16"), ("f16", "f32"), ("f32", "f32"), ("f64", "f64"))]


@pytest.mark.parametrize("seed,dts", RANDOM_CASES)
def test_random_odd(seed, dts, rng):
    a, b, d, ext = _random_case(seed)
    order = "F" if seed % 2 else "C"
    contract_and_check(rng, a, b, d, ext, dts[0], dts[1], order, with_c=seed % 3 == 0, alpha=1.5,
                       beta=0.75 if seed % 3 == 0 else 0.0, what=f"{a},{b}->{d} {ext}")


@pytest.mark.parametrize("dt", ["f16", "f32", "f64", "bf16"])
@pytest.mark.parametrize("mnk", [(1, 1, 1), (1, 37, 5), (37, 1, 5), (129, 131, 67), (16, 16, 16), (128, 128, 64),
                                 (7, 300, 1), (300, 7, 3), (64, 64, 0), (2000, 24, 48), (24, 2000, 48)])
def test_gemm_shapes(mnk, dt, rng):
    M, N, K = mnk
    dt_out = dt
    contract_and_check(rng, "ik", "kj", "ij", {"i": M, "j": N, "k": K}, dt, dt_out, "C", with_c=True, alpha=1.0,
                       beta=0.5, what=f"gemm {mnk}")


@pytest.mark.parametrize("dt", ["f16", "f32"])
def test_column_walk_large_b(dt, rng):
    """A short M (3 tile rows of 128, or 5 of 64 in f32) and a B of over 24 MB: the tiles walk down the
    columns (gett.cuh's COLUMN_WALK); every output element against float64."""
    import cupy as cp

    import gettpy
    from gettpy.kernels.spec import TileConfig
    from gettpy.plan.tiles import choose_tile

    M, N, K = 300, 60000, 264
    npdt = {"f16": np.float16, "f32": np.float32}[dt]
    assert K * N * np.dtype(npdt).itemsize > 24 << 20
    t = choose_tile(M, N, K, dtype=dt)
    assert 1 < math.ceil(M / t.bm) <= TileConfig(64, 64, 16, 3, tm=4, tn=4).group_m
    a, b = rand(rng, (M, K)).astype(npdt), rand(rng, (K, N)).astype(npdt)
    got = cp.asnumpy(gettpy.einsum("mk,kn->mn", cp.asarray(a), cp.asarray(b)))
    ref, scale = reference_modes("mk", "kn", "mn", a.astype(np.float64), b.astype(np.float64))
    check(got, ref, scale, dt, f"column walk {dt}")


# ----------------------------------------------------------------------------------------------- views, batch
@pytest.mark.parametrize("dt", ["f16", "f32", "f64"])
def test_strided_views(dt, rng):
    import cupy as cp

    ha = rounded(rand(rng, (40, 33, 50)), dt)
    hb = rounded(rand(rng, (30, 41, 22)), dt)
    a_full, b_full = device_array(ha, dt), device_array(hb, dt)
    a = a_full[::2, ::-1, 3:40:3]      # (20, 33, 13): negative and non-unit strides
    b = b_full[:13, ::-3, 1::2]        # (13, 14, 11)
    ha_v, hb_v = ha[::2, ::-1, 3:40:3], hb[:13, ::-3, 1::2]
    # A: i k l, B: l j m? contract A[i,k,l] B[l,j,m] -> D[m,i,j,k]? keep it: ikl,ljm->jmik
    d_full = poisoned((14, 11, 20, 33 * 2), dt)
    d = d_full[:, :, :, ::2]
    plan = run_contraction("ikl", "ljm", "jmik", a, b, d, dt, dt)
    ref, scale = reference_modes("ikl", "ljm", "jmik", ha_v, hb_v)
    check(host_values(d, dt), ref, scale, dt, "views")
    # untouched elements of the output's backing array stay NaN
    assert bool(cp.isnan(d_full[:, :, :, 1::2].astype(cp.float32)).all())
    assert plan.K == 13


@pytest.mark.parametrize("dt", ["f16", "f32"])
@pytest.mark.parametrize("subs,ext", [
    (("bik", "bkj", "bij"), {"b": 5, "i": 33, "j": 17, "k": 40}),
    (("ibk", "kjb", "jbi"), {"b": 3, "i": 64, "j": 72, "k": 48}),
    (("bik", "bkj", "bij"), {"b": 70000, "i": 2, "j": 3, "k": 4}),
    (("xbik", "bkjy", "ybijx"), {"b": 4, "i": 9, "j": 10, "k": 11, "x": 3, "y": 2}),
])
def test_batch(subs, ext, dt, rng):
    a, b, d = subs
    contract_and_check(rng, a, b, d, ext, dt, dt, "C", with_c=True, alpha=2.0, beta=-1.0, what=f"batch {subs}")


@pytest.mark.parametrize("alpha,beta,with_c", [(1.0, 0.0, False), (0.5, 0.0, True), (-2.0, 1.0, True),
                                               (0.0, 3.0, True), (1.0, 1.0, False)])
@pytest.mark.parametrize("dt", ["f16", "f32"])
def test_alpha_beta(alpha, beta, with_c, dt, rng):
    ext = {"a": 45, "b": 70, "c": 33, "d": 20}
    # beta != 0 without a C: C is not read (the reference ignores beta too)
    contract_and_check(rng, "adc", "dcb", "ab", ext, dt, dt, "F", with_c=with_c, alpha=alpha, beta=beta,
                       what=f"alpha={alpha} beta={beta} c={with_c}")


def test_c_layout_differs_from_d(rng):
    import cupy as cp

    hA, hB = rounded(rand(rng, (30, 20)), "f32"), rounded(rand(rng, (20, 50)), "f32")
    hC = rounded(rand(rng, (50, 30)), "f32")
    a, b = device_array(hA, "f32"), device_array(hB, "f32")
    c = device_array(hC, "f32").T          # (30, 50) transposed view
    d = poisoned((30, 50), "f32")
    run_contraction("ik", "kj", "ij", a, b, d, "f32", "f32", c=c, alpha=1.0, beta=2.0)
    ref = hA @ hB + 2.0 * hC.T
    check(cp.asnumpy(d), ref, np.abs(hA) @ np.abs(hB) + 2 * np.abs(hC.T), "f32", "C transposed")


def _all_ops():
    from gettpy import ops

    return [ops.neg, ops.abs, ops.relu, ops.gelu, ops.sigmoid, ops.tanh, ops.exp, ops.log, ops.sqrt, ops.square,
            ops.leaky_relu(0.1), ops.elu(0.7), ops.scale(-0.5),
            ops.custom("x > T(0) ? x : T(0.1) * x", numpy=lambda x: np.where(x > 0, x, 0.1 * x))]


@pytest.mark.parametrize("dt", ["f16", "f32"])
@pytest.mark.parametrize("where", [0, 1, 2, 3])
@pytest.mark.parametrize("opi", range(14))
def test_ops(opi, where, dt, rng):
    op = _all_ops()[opi]
    positive = op.name in ("log", "sqrt")
    ops = [None] * 4
    ops[where] = op
    ext = {"a": 37, "b": 45, "c": 29, "d": 7}  # K = 29 * 7: partial k-tiles (masking after the op)
    dt_out = "f32"
    contract_and_check(rng, "acd", "dcb", "ab", ext, dt, dt_out, "C", with_c=where == 2, alpha=0.25,
                       beta=0.5 if where == 2 else 0.0, ops=tuple(ops), positive=positive,
                       what=f"op {op.name} on {'ABCD'[where]}")


def test_empty_extents(rng):
    import cupy as cp

    a = cp.zeros((0, 5), cp.float32)
    b = cp.zeros((5, 3), cp.float32)
    d = cp.zeros((0, 3), cp.float32)
    run_contraction("ik", "kj", "ij", a, b, d, "f32", "f32")


def test_through_einsum_if_available(rng):
    import cupy as cp

    import gettpy

    a = cp.asarray(rand(rng, (17, 23, 9)).astype(np.float32))
    b = cp.asarray(rand(rng, (9, 23, 11)).astype(np.float32))
    try:
        d = gettpy.einsum("ikl,lkj->ij", a, b)
    except Exception as e:  # noqa: BLE001 - the front end may not route cupy arrays yet
        pytest.skip(f"gettpy.einsum on cupy arrays: {e}")
    ref = np.einsum("ikl,lkj->ij", cp.asnumpy(a).astype(np.float64), cp.asnumpy(b).astype(np.float64))
    check(cp.asnumpy(d), ref, np.abs(ref) + 1, "f32", "einsum")


@pytest.mark.parametrize("dt", ["f16", "f32", "f64"])
def test_pad_unpad(dt, rng):
    import cupy as cp

    from gettpy.kernels import pad, unpad

    h = rand(rng, (5, 7, 3)).astype(NP[dt])
    x = cp.asarray(h)[:, ::-1, :]  # a view with a negative stride
    y = pad(x, (4, 8, 1))
    assert y.shape == (8, 8, 3) and y.flags.c_contiguous
    hy = cp.asnumpy(y)
    np.testing.assert_array_equal(hy[:5, :7], h[:, ::-1])
    assert not hy[5:].any() and not hy[:, 7:].any()
    z = unpad(y, (5, 7, 3))
    np.testing.assert_array_equal(cp.asnumpy(z), h[:, ::-1])


# ----------------------------------------------------------------------------------------------- interleaved tiles
# The output's and an input's stride-1 modes in the same GEMM dimension: the planner cuts the output's mode
# and the input is read in vectors along a non-leading map term (OperandSpec.vs > 1).
INTERLEAVED = [
    # (C-A-B, extents by letter, order, the cut of the output's stride-1 mode for 2-byte inputs)
    ("abc-bda-dc", {"a": 48, "b": 40, "c": 24, "d": 20}, "F", 16),     # #1's shape: conflict in the big dim
    ("abc-bda-dc", {"a": 40, "b": 24, "c": 9, "d": 13}, "F", 8),       # 40 = 8 x 5: runs of 8
    ("abc-bda-dc", {"a": 8, "b": 56, "c": 24, "d": 20}, "F", 8),       # short x: not cut, y follows it
    ("abcde-efbad-cf", {"a": 48, "b": 3, "c": 24, "d": 5, "e": 16, "f": 32}, "F", 16),  # #6 reduced
    ("abcde-ecbfa-fd", {"a": 32, "b": 3, "c": 5, "d": 24, "e": 24, "f": 48}, "F", 16),  # #7 reduced
    ("xmy-mk-ykx", {"x": 32, "m": 70, "y": 24, "k": 67}, "F", 16),    # in n, no swap
    ("cba-adb-cd", {"a": 48, "b": 40, "c": 24, "d": 20}, "C", 16),     # C order
]


@pytest.mark.parametrize("dt_in,dt_out", [("f16", "f16"), ("f16", "f32"), ("bf16", "bf16"), ("f32", "f32")])
@pytest.mark.parametrize("con,ext,order,cut", INTERLEAVED, ids=[f"{c}_{o}_{k}" for c, _, o, k in INTERLEAVED])
def test_interleaved(con, ext, order, cut, dt_in, dt_out, rng):
    from gettpy import ops
    from gettpy.plan.tiles import kernel_spec

    c, a, b = con.split("-")
    plan = contract_and_check(rng, a, b, c, ext, dt_in, dt_out, order, with_c=True, alpha=1.5, beta=0.5,
                              ops=(ops.leaky_relu(0.1), None, ops.neg, None), what=f"{con} {ext}")
    assert plan.part.split_m or plan.part.split_n, plan.part
    if dt_in != "f32":  # (4-byte vectors: the cut may be twice as long)
        assert cut in (plan.part.split_m, plan.part.split_n), plan.part
    spec = kernel_spec(plan, True)
    assert max(spec.a.vs, spec.b.vs) > 1, spec


# ----------------------------------------------------------------------------------------------- D runs
# ccsd_t's outputs: D's stride-1 run (24) lies in one GEMM dimension and goes on in the other; the
# heuristic cuts the tile to a multiple of the run and the epilogue stores run by run (OutputSpec.run).
D_RUNS = [
    ("abcdef-degb-gfac", {"a": 24, "b": 16, "c": 5, "d": 24, "e": 3, "f": 7, "g": 24}),  # #32 family
    ("abcdef-dega-gfbc", {"a": 24, "b": 16, "c": 4, "d": 8, "e": 5, "f": 6, "g": 24}),   # #31 family
    ("abcdef-gdac-efgb", {"a": 24, "b": 8, "c": 5, "d": 9, "e": 4, "f": 4, "g": 24}),    # #41, b = 8
]


@pytest.mark.parametrize("dt_in,dt_out", [("f16", "f16"), ("f16", "f32"), ("bf16", "bf16"), ("f32", "f32")])
@pytest.mark.parametrize("con,ext", D_RUNS, ids=[c for c, _ in D_RUNS])
def test_d_runs(con, ext, dt_in, dt_out, rng):
    from gettpy import ops
    from gettpy.plan.tiles import kernel_spec

    c, a, b = con.split("-")
    plan = contract_and_check(rng, a, b, c, ext, dt_in, dt_out, "F", with_c=True, alpha=1.5, beta=-0.5,
                              ops=(None, None, None, ops.leaky_relu(0.1)), what=f"{con} {ext}")
    spec = kernel_spec(plan, True)
    if dt_in == "f32":  # simt tiles are not cut to the run (measured slower), so no run-by-run walk
        assert spec.tile.mma is False and spec.d.run == 0, spec
    else:
        assert spec.d.run == 24 and spec.d.cont >= 2, spec.d
        assert (spec.tile.bn if spec.d.ncontig else spec.tile.bm) % 24 == 0, spec.tile  # tiles start on a run
