"""The long-K kernel (gettpy.kernels.longk) on a device: the contractions the planner gives it (odd row lengths,
both memory orders, merged modes; the kernel checked to have run), and every candidate tile and read forced on
views that start at odd offsets, f16 and bf16, each checked against numpy float64."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from harness import assert_close, fresh_caches, from_bf16_bits, nonzero, record_calls, to_bf16_bits

import gettpy
from gettpy import ops
from gettpy.backends import execute
from gettpy.dtypes import ITEMSIZE
from gettpy.kernels import longk as klongk
from gettpy.kernels.longk import LongKLayout, kt
from gettpy.plan.longk import CANDIDATES
from gettpy.plan.problem import ContractionProblem, TensorInfo
from gettpy.plan.schedule import make_schedule


@pytest.fixture
def launches(monkeypatch):
    """A list that gets one entry per long-K launch."""
    return record_calls(monkeypatch, klongk, "longk_run")


#: (einsum, extents, order): long sums over rows of odd lengths that the planner gives the long-K kernel
CHOSEN = [
    ("mk,nk->mn", dict(m=29, n=113, k=777777), "C"),
    ("km,kn->mn", dict(m=77, n=45, k=300001), "C"),
    ("mk,kn->mn", dict(m=61, n=17, k=1234567), "C"),
    ("mxy,nxy->mn", dict(m=37, n=37, x=1001, y=999), "C"),
    ("km,nk->nm", dict(m=127, n=80, k=500001), "C"),
    ("mk,nk->mn", dict(m=101, n=51, k=654321), "F"),
    ("bmk,bnk->bmn", dict(b=1, m=29, n=113, k=300001), "C"),  # (a batch mode of one index)
]


@pytest.mark.gpu
@pytest.mark.smoke
@pytest.mark.parametrize("eq,ext,order", CHOSEN, ids=[c[0] + "-" + c[2] for c in CHOSEN])
def test_planner_sends_long_sums_to_the_longk_kernel(launches, eq, ext, order):
    import cupy

    fresh_caches()
    rng = np.random.default_rng(11)
    lhs, out = eq.split("->")
    xs = [np.asarray(nonzero(rng, [ext[m] for m in t]).astype(np.float16), order=order) for t in lhs.split(",")]
    got = gettpy.einsum(eq, *[cupy.asarray(x, order=order) for x in xs])
    assert launches, "the long-K kernel did not run"
    ref = np.einsum(eq, *[x.astype(np.float64) for x in xs])
    # (exact float16 products summed in float32 err by well under 0.05 here; the float16 result rounds by at most
    #  2^-11 of its value: a lost or doubled step of 64 products, about 8, fails)
    err = np.abs(cupy.asnumpy(got).astype(np.float64) - ref)
    assert (err <= 2.0**-10 * np.abs(ref) + 0.05).all(), float((err - 2.0**-10 * np.abs(ref)).max())


#: float32 rows of odd lengths over long sums that the planner gives the long-K kernel (a small M x N; on a device
#: with float64 tensor cores its float64-mma tiles)
CHOSEN_F32 = [
    ("mk,nk->mn", dict(m=20, n=20, k=5000001)),  # (a 32 x 32 tile)
    ("km,kn->nm", dict(m=61, n=17, k=1234567)),  # (64 x 32, m / n-major reads)
    ("mk,nk->nm", dict(m=17, n=61, k=1234567)),
    ("ijrs,ij->rs", dict(i=211, j=263, r=37, s=29)),  # (a matrix-vector product, m-major: 128 x 8 tiles)
    ("km,kn->mn", dict(m=83, n=70, k=310001)),  # (96 x 64)
]


@pytest.mark.gpu
@pytest.mark.parametrize("eq,ext", CHOSEN_F32, ids=[c[0] for c in CHOSEN_F32])
def test_planner_sends_float32_long_sums_to_the_longk_kernel(launches, eq, ext):
    """The planner's tile on the device's target; on float64-mma tiles every sum is float64, so D is the float64
    product rounded once to float32 (FMA tiles: float32 sums, within their rounding)."""
    import cupy

    from gettpy.plan.target import device_target

    fresh_caches()
    rng = np.random.default_rng(12)
    lhs, out = eq.split("->")
    xs = [nonzero(rng, [ext[m] for m in t]).astype(np.float32) for t in lhs.split(",")]
    got = cupy.asnumpy(gettpy.einsum(eq, *[cupy.asarray(x) for x in xs]))
    assert launches and launches[0].dtype == "f32", "the long-K kernel's float32 tiles did not run"
    ref = np.einsum(eq, *[x.astype(np.float64) for x in xs])
    if launches[0].tile.f64_mma:
        assert device_target().dmma
        # (D's one rounding, half a float32 unit, plus the float64 sums' error over K products of magnitude < 2.25)
        K = int(np.prod([e for m, e in ext.items() if m not in out]))
        err = np.abs(got.astype(np.float64) - ref)
        assert (err <= 2.0**-24 * np.abs(ref) + 10 * K * 2.0**-52).all(), float((err / np.abs(ref)).max())
    else:
        assert_close(got, ref, np.float32, scale=float(np.sqrt(np.prod(list(ext.values())))))


def _info(name, modes, x, dtype, op=None):
    kw = {} if op is None else {"op": op}
    return TensorInfo(name, tuple(modes), tuple(s // x.itemsize for s in x.strides), dtype, **kw)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype,alpha,seed", [("f16", 1e-3, 5), ("f32", 0.1, 6)])
def test_longk_epilogue_alpha_beta_c_op_into_f32(launches, dtype, alpha, seed):
    """D = tanh(alpha A B + beta C) into a float32 D through the planner's long-K schedule on the device's target;
    float32 inputs on its float64-mma tiles where it has them, alpha = 0.1 not a float32 value."""
    import cupy

    from gettpy.plan.target import device_target

    npdt = {"f16": np.float16, "f32": np.float32}[dtype]
    rng = np.random.default_rng(seed)
    M, N, K = 45, 71, 400003
    a = nonzero(rng, (M, K)).astype(npdt)
    b = nonzero(rng, (N, K)).astype(npdt)
    c = nonzero(rng, (M, N)).astype(np.float32)
    d = cupy.full((M, N), cupy.nan, dtype=cupy.float32)
    ext = (("k", K), ("m", M), ("n", N))
    p = ContractionProblem(_info("A", "mk", a, dtype), _info("B", "nk", b, dtype), _info("C", "mn", c, "f32"),
                           _info("D", "mn", d, "f32", ops.tanh), ext, "f32")
    s = make_schedule(p, target=device_target())
    assert s.longk is not None
    if dtype == "f32":
        assert s.longk.layout.tile.f64_mma == device_target().dmma
    execute("cupy", s, cupy.asarray(a), cupy.asarray(b), cupy.asarray(c), d, alpha, -0.5)
    assert launches
    ref = np.tanh(alpha * (a.astype(np.float64) @ b.astype(np.float64).T) - 0.5 * c)
    assert_close(cupy.asnumpy(d), ref, np.float32, scale=1.0)


def _view(cupy, rng, rows, K, kmajor, dtype, offset):
    """(device view whose element (r, k) is at r * ld + k (kmajor) or k * ld + r, starting `offset` elements into
    its buffer; its leading dimension ld (odd); its values as float64)."""
    base = K if kmajor else rows
    ld = base + 1 if base % 2 == 0 else base + 2  # (odd: no two rows aligned alike)
    n = (rows - 1) * ld + K if kmajor else (K - 1) * ld + rows
    vals = nonzero(rng, (n + offset,)).astype(np.float32)
    if dtype == "bf16":
        bits = to_bf16_bits(vals)
        host, dev = from_bf16_bits(bits).astype(np.float64), cupy.asarray(bits)
    elif dtype == "f32":
        host, dev = vals.astype(np.float64), cupy.asarray(vals)
    else:
        host, dev = vals.astype(np.float16).astype(np.float64), cupy.asarray(vals.astype(np.float16))
    st = (ld, 1) if kmajor else (1, ld)
    ref = np.lib.stride_tricks.as_strided(host[offset:], (rows, K), tuple(8 * s for s in st))
    return dev[offset:], ld, ref


#: (candidate, input type) of every candidate tile and the types of its item size
FORCED = [(c, dt) for c in CANDIDATES for dt in ("f16", "bf16", "f32") if ITEMSIZE[dt] == c.itemsize]


@pytest.mark.gpu
@pytest.mark.parametrize("cand,dtype", FORCED,
                         ids=[f"{c.tile.bm}x{c.tile.bn}-{dt}{'-f64mma' if c.tile.f64_mma else ''}" for c, dt in FORCED])
def test_forced_tiles_and_reads(cand, dtype):
    """Every tile, both reads of both inputs, views at odd offsets, M / N past one tile and below it, K not a whole
    number of steps (the last slice short): the slices' sums against float64."""
    import cupy

    tile = cand.tile
    rng = np.random.default_rng(tile.bm * 1000 + tile.bn + ("f16", "bf16", "f32").index(dtype))
    KT = kt(dtype)
    shapes = [(tile.bm + 7, 5, 9 * KT + 13, 4 * KT), (1, tile.bn + 3, 40003, 64 * KT),
              (tile.bm - 3, tile.bn - 1, 3 * KT, KT), (19, 33, 20011, 7 * KT)]
    for (akm, bkm), (M, N, K, slice_) in zip(itertools.product((True, False), repeat=2), shapes, strict=True):
        if cand.step_mn is None and not (akm and bkm):
            akm = bkm = True  # (a k-major-only candidate: its shapes all read k-major)
        a, lda, ra = _view(cupy, rng, M, K, akm, dtype, offset=int(rng.integers(0, 8)))
        b, ldb, rb = _view(cupy, rng, N, K, bkm, dtype, offset=int(rng.integers(0, 8)))
        lay = LongKLayout(dtype, M, N, K, akm, lda, bkm, ldb, tile, slice_)
        w = cupy.asnumpy(klongk.longk_run(lay, a, b, 0.75))
        assert w.shape == (lay.slices, M, N)
        ref = np.stack([0.75 * ra[:, z * slice_:(z + 1) * slice_] @ rb[:, z * slice_:(z + 1) * slice_].T
                        for z in range(lay.slices)])
        if tile.f64_mma:  # (exact products summed in float64: a float32 rounding anywhere is 1e-8 of a sum)
            assert w.dtype == np.float64
            np.testing.assert_allclose(w, ref, rtol=0, atol=1e-12 * np.sqrt(slice_))
        else:
            assert_close(w, ref, np.float32, scale=float(np.sqrt(slice_)))
