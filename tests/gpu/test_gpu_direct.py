"""The direct kernel (gettpy.kernels.direct) on a device: the contractions the planner gives it, then every
contraction with a short sum forced onto it (strided, permuted and reversed views, mixed dtypes, C with beta and
ops, misaligned outputs, a 0-d output), each checked against numpy float64 and checked to have run the kernel."""
from __future__ import annotations

import numpy as np
import pytest
from harness import assert_close, fresh_caches, nonzero, record_calls

import gettpy
from gettpy.kernels import direct as kdirect
from gettpy.plan import direct as pdirect


@pytest.fixture
def launches(monkeypatch):
    """A list that gets one entry per direct-kernel launch."""
    return record_calls(monkeypatch, kdirect, "direct_run")


@pytest.fixture
def rendered(monkeypatch):
    """A list that gets the `pairs` argument of each direct source rendered for a launch."""
    seen = []
    real = kdirect._source

    def recorded(lay, read_c, pairs):
        seen.append(pairs)
        return real(lay, read_c, pairs)

    monkeypatch.setattr(kdirect, "_source", recorded)
    return seen


@pytest.fixture
def forced(monkeypatch):
    """The planner takes the direct kernel wherever it can run the problem."""
    monkeypatch.setattr(pdirect, "DIRECT_GAIN", 1e9)
    fresh_caches()
    yield
    fresh_caches()


def _strided(rng, cp, shape, dtype, perm, steps, flip):
    base_shape = tuple(shape[p] * steps[p] for p in perm)
    base = cp.asarray(nonzero(rng, base_shape).astype(dtype))
    v = base[tuple(slice(None, None, steps[p]) for p in perm)].transpose(tuple(np.argsort(perm)))
    return v[tuple(slice(None, None, -1) if i in flip else slice(None) for i in range(len(shape)))]


#: (einsum, extents, order): contractions the planner sends to the direct kernel on an H100
CHOSEN = [
    ("abij,ij->abij", dict(a=113, b=107, i=29, j=31), "C"),
    ("ij,j->ij", dict(i=3001, j=5003), "C"),
    ("bi,bj->bij", dict(b=35, i=2156, j=823), "F"),
    ("bij,bi->bij", dict(b=37, i=2000, j=1001), "F"),
]


@pytest.mark.gpu
@pytest.mark.smoke
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("eq,ext,order", CHOSEN, ids=[c[0] + "-" + c[2] for c in CHOSEN])
def test_planner_sends_short_sums_to_the_direct_kernel(launches, eq, ext, order, dtype):
    import cupy

    fresh_caches()
    rng = np.random.default_rng(7)
    lhs, out = eq.split("->")
    xs = [np.asarray(nonzero(rng, [ext[m] for m in t]).astype(dtype), order=order) for t in lhs.split(",")]
    dev = [cupy.asarray(x, order=order) for x in xs]
    got = cupy.full([ext[m] for m in out], cupy.nan, dtype=dtype, order=order)
    gettpy.einsum(eq, *dev, out=got)
    assert launches, "the direct kernel did not run"
    assert_close(cupy.asnumpy(got), np.einsum(eq, *[x.astype(np.float64) for x in xs]), dtype)


def _random_case(rng):
    """A random contraction with a sum of at most MAX_K values: 1-4 free modes of D (batch, A's and B's), 0-2
    summed modes, extents 1-37."""
    letters = iter("abcdefghij")
    kinds = rng.choice(["batch", "a", "b"], size=int(rng.integers(1, 5)))
    free = [(next(letters), str(k)) for k in kinds]
    summed = [next(letters) for _ in range(int(rng.integers(0, 3)))]
    ext = {m: int(rng.integers(1, 38)) for m, _ in free}
    left = kdirect.MAX_K
    for m in summed:
        ext[m] = int(rng.integers(1, max(2, left) + 1))
        left = max(1, left // ext[m])
    while np.prod([ext[m] for m in summed]) > kdirect.MAX_K:
        ext[summed[-1]] = max(1, ext[summed[-1]] // 2)
    ma = [m for m, k in free if k in ("batch", "a")] + summed
    mb = [m for m, k in free if k in ("batch", "b")] + summed
    md = [m for m, _ in free]
    for x in (ma, mb, md):
        rng.shuffle(x)
    return "".join(ma) + "," + "".join(mb) + "->" + "".join(md), ext


@pytest.mark.gpu
@pytest.mark.parametrize("seed", range(24))
def test_forced_direct_random_views(forced, launches, seed):
    """Random short sums on views (permuted, every other element, reversed axes), in every dtype mix."""
    import cupy

    rng = np.random.default_rng(100 + seed)
    eq, ext = _random_case(rng)
    dts = [("float16", None), ("float32", None), ("float64", None), ("float16", "float32")][seed % 4]
    lhs, out = eq.split("->")
    ops_ = []
    for modes in lhs.split(","):
        shape = tuple(ext[m] for m in modes)
        perm = tuple(rng.permutation(len(shape)))
        steps = tuple(int(s) for s in rng.integers(1, 3, len(shape)))
        flip = {i for i in range(len(shape)) if rng.random() < 0.3}
        ops_.append(_strided(rng, cupy, shape, dts[0], perm, steps, flip))
    got = gettpy.einsum(eq, *ops_, dtype=dts[1])
    ref = np.einsum(eq, *[cupy.asnumpy(x).astype(np.float64) for x in ops_])
    assert launches or got.size == 0 or ref.size == 0, eq
    assert_close(cupy.asnumpy(got), ref, dts[1] or dts[0])


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forced_direct_with_c_beta_and_ops(forced, launches, dtype):
    """D = tanh(alpha relu(A) B + beta |C|) through the plan API, D a view one element off its allocation, C a
    transposed view."""
    import cupy

    rng = np.random.default_rng(3)
    a = nonzero(rng, (23, 5, 3)).astype(dtype)
    b = nonzero(rng, (3, 17)).astype(dtype)
    c = nonzero(rng, (17, 5, 23)).astype(dtype).transpose(2, 1, 0)
    da, db, dc = cupy.asarray(a), cupy.asarray(b), cupy.asarray(c)
    whole = cupy.full(23 * 5 * 17 + 1, cupy.nan, dtype=dtype)
    dd = whole[1:].reshape(23, 5, 17)
    desc = gettpy.TensorDescriptor
    p = gettpy.plan(desc.of(da, "relu"), "xyk", desc.of(db), "kz", desc.of(dc, "abs"), "xyz", desc.of(dd, "tanh"),
                    "xyz")
    gettpy.contract(p, 0.5, da, db, -2.0, dc, dd)
    assert launches
    ref = np.tanh(0.5 * np.einsum("xyk,kz->xyz", np.maximum(a, 0).astype(np.float64), b.astype(np.float64))
                  - 2.0 * np.abs(c.astype(np.float64)))
    assert_close(cupy.asnumpy(dd), ref, dtype)
    assert np.isnan(cupy.asnumpy(whole[0]))  # (nothing written before D)


@pytest.mark.gpu
def test_forced_direct_zero_d_and_extent_one(forced, launches):
    import cupy

    rng = np.random.default_rng(4)
    a, b = nonzero(rng, (3, 5)).astype(np.float32), nonzero(rng, (3, 5)).astype(np.float32)
    got = gettpy.einsum("ab,ab->", cupy.asarray(a), cupy.asarray(b))
    assert_close(cupy.asnumpy(got), np.einsum("ab,ab->", a.astype(np.float64), b.astype(np.float64)), np.float32)
    x, y = nonzero(rng, (1, 9, 4)).astype(np.float32), nonzero(rng, (4,)).astype(np.float32)
    got = gettpy.einsum("xab,b->ax", cupy.asarray(x), cupy.asarray(y))
    assert_close(cupy.asnumpy(got), np.einsum("xab,b->ax", x.astype(np.float64), y.astype(np.float64)), np.float32)
    assert len(launches) == 2


@pytest.mark.gpu
def test_direct_bfloat16_torch(launches):
    """bfloat16 torch tensors (CuPy has no bfloat16) through the direct kernel: columns scaled, float32 sums."""
    torch = pytest.importorskip("torch")
    fresh_caches()
    rng = np.random.default_rng(8)
    a, v = nonzero(rng, (1201, 2003)), nonzero(rng, (2003,))
    ta = torch.tensor(a, dtype=torch.bfloat16, device="cuda")
    tv = torch.tensor(v, dtype=torch.bfloat16, device="cuda")
    got = gettpy.einsum("ij,j->ij", ta, tv)
    assert launches and got.dtype == torch.bfloat16
    ha, hv = (t.float().cpu().numpy().astype(np.float64) for t in (ta, tv))
    ref = np.einsum("ij,j->ij", ha, hv)
    err = np.abs(got.float().cpu().numpy().astype(np.float64) - ref).max() / np.abs(ref).max()
    assert err < 1e-2, err  # (bfloat16's 8-bit mantissa: the product rounded once)


@pytest.mark.gpu
def test_direct_64bit_offsets(launches):
    """An outer product of 2.25e9 float16 values (past 2^31: the kernel's 64-bit index arithmetic), checked at the
    last row and column and at 2,000 random places against numpy float64."""
    import cupy

    fresh_caches()
    rng = np.random.default_rng(9)
    x, y = nonzero(rng, (50_000,)).astype(np.float16), nonzero(rng, (45_000,)).astype(np.float16)
    dx, dy = cupy.asarray(x), cupy.asarray(y)
    d = cupy.empty((50_000, 45_000), dtype=cupy.float16)
    gettpy.einsum("i,j->ij", dx, dy, out=d)
    assert launches and launches[-1].total >= 2**31
    rows = np.concatenate([rng.integers(0, 50_000, 2000), [49_999] * 5])
    cols = np.concatenate([rng.integers(0, 45_000, 2000), [0, 1, 44_998, 44_999, 22_500]])
    got = cupy.asnumpy(d[cupy.asarray(rows), cupy.asarray(cols)]).astype(np.float64)
    ref = x[rows].astype(np.float64) * y[cols].astype(np.float64)
    assert_close(got, ref, np.float16)
    del d
    cupy.get_default_memory_pool().free_all_blocks()


@pytest.mark.gpu
@pytest.mark.parametrize("offset", [0, 1], ids=["aligned", "offset"])
def test_pairs_float16_with_c_and_ops(launches, rendered, offset):
    """A 2-byte Hadamard product two values a unit (DirectLayout.pairs): D = tanh(0.5 relu(A) B - 2 |C|), A and C
    transposed, D a view `offset` elements into its allocation (1: not 4-byte aligned, one value a unit)."""
    import cupy

    fresh_caches()
    rng = np.random.default_rng(10 + offset)
    a = nonzero(rng, (30, 24, 18)).astype(np.float16)
    b = nonzero(rng, (18, 24, 30)).astype(np.float16).transpose(2, 1, 0)
    c = nonzero(rng, (30, 24, 18)).astype(np.float16)
    da, db, dc = cupy.asarray(a), cupy.asarray(b), cupy.asarray(c)
    whole = cupy.full(30 * 24 * 18 + offset, cupy.nan, dtype=cupy.float16)
    dd = whole[offset:].reshape(30, 24, 18)
    desc = gettpy.TensorDescriptor
    p = gettpy.plan(desc.of(da, "relu"), "xyz", desc.of(db), "xyz", desc.of(dc, "abs"), "xyz", desc.of(dd, "tanh"),
                    "xyz")
    gettpy.contract(p, 0.5, da, db, -2.0, dc, dd)
    assert launches and launches[-1].pairs is False and rendered[-1] is False  # (B transposed: one value a unit)
    ref = np.tanh(0.5 * np.maximum(a, 0).astype(np.float64) * b.astype(np.float64) - 2.0 * np.abs(c.astype(np.float64)))
    assert_close(cupy.asnumpy(dd), ref, np.float16)
    # the same with B in A's order: two values a unit where D's pointer is aligned
    b2 = np.ascontiguousarray(b)
    db2 = cupy.asarray(b2)
    dd[...] = cupy.nan
    p = gettpy.plan(desc.of(da, "relu"), "xyz", desc.of(db2), "xyz", desc.of(dc, "abs"), "xyz", desc.of(dd, "tanh"),
                    "xyz")
    gettpy.contract(p, 0.5, da, db2, -2.0, dc, dd)
    assert launches[-1].pairs and launches[-1].vec in (4, 8)
    assert rendered[-1] is (offset == 0)  # (two values a unit only where D's pointer is 4-byte aligned)
    assert_close(cupy.asnumpy(dd), ref, np.float16)
    if offset:
        assert np.isnan(cupy.asnumpy(whole[0]))


@pytest.mark.gpu
@pytest.mark.parametrize("eq,ext", [("abij,abij->abij", dict(a=40, b=30, i=12, j=22)),
                                    ("abij,abij->abij", dict(a=41, b=31, i=13, j=23)),  # (odd: a last single)
                                    ("ij,j->ij", dict(i=1001, j=2002)),
                                    ("bij,bj->bij", dict(b=34, i=301, j=102))])
def test_pairs_bfloat16_torch(launches, rendered, eq, ext):
    """bfloat16 torch tensors two values a unit, against numpy float64 of the same bfloat16 values."""
    torch = pytest.importorskip("torch")
    fresh_caches()
    rng = np.random.default_rng(11)
    lhs, out = eq.split("->")
    ts = [torch.tensor(nonzero(rng, [ext[m] for m in t]), dtype=torch.bfloat16, device="cuda") for t in lhs.split(",")]
    got = gettpy.einsum(eq, *ts)
    assert launches and launches[-1].pairs and rendered[-1] is True
    ref = np.einsum(eq, *[t.float().cpu().numpy().astype(np.float64) for t in ts])
    err = np.abs(got.float().cpu().numpy().astype(np.float64) - ref).max() / np.abs(ref).max()
    assert err < 1e-2, err  # (bfloat16's 8-bit mantissa: the product rounded once)
