"""The long-K plan (gettpy.plan.longk): which contractions the kernel takes and how it reads them, checked on the CPU
by running its plans through a numpy emulation of the kernel's launch (each slice's partial sums read through the
layout's k-major / m,n-major strides exactly as the kernel addresses them) against numpy's float64 einsum, and the
planner's choice on shapes that no benchmark holds."""
from __future__ import annotations

import numpy as np
import pytest
from harness import nonzero

from gettpy import ops
from gettpy.backends import staged
from gettpy.kernels import longk as klongk
from gettpy.kernels.longk import LongKLayout, kt
from gettpy.plan.longk import CANDIDATES, MAX_TILES, longk_geometry, longk_plan
from gettpy.plan.problem import ContractionProblem, TensorInfo
from gettpy.plan.schedule import make_schedule
from gettpy.plan.target import DEFAULT_TARGET


def _info(name, modes, x, dtype, op=None):
    kw = {} if op is None else {"op": op}
    return TensorInfo(name, tuple(modes), tuple(s // x.itemsize for s in x.strides), dtype, **kw)


def _problem(eq, a, b, ext, dtype="f16", d_dtype="f16", c=None, ops_ab=(None, None), op_d=None):
    (ma, mb), md = eq.split("->")[0].split(","), eq.split("->")[1]
    shape = tuple(ext[m] for m in md)
    d = np.empty(shape, dtype={"f16": np.float16, "f32": np.float32}[d_dtype])
    dinfo = _info("D", md, d, d_dtype, op_d)
    cinfo = None if c is None else _info("C", md, c, d_dtype)
    p = ContractionProblem(_info("A", ma, a, dtype, ops_ab[0]), _info("B", mb, b, dtype, ops_ab[1]), cinfo, dinfo,
                           tuple(sorted(ext.items())), "f32")
    return p, d


def _emulated_run(lay: LongKLayout, a, b, alpha):
    """What the kernel writes: W[z, m, n] = alpha * sum over slice z of A(m, k) B(n, k), A(m, k) at element
    m * ld + k (k-major) or k * ld + m of the memory from a's first element on (float64 on float64-mma tiles), with
    alpha rounded to float32 as the kernel takes it."""
    def view(x, kmajor, ld, rows):
        st = (ld, 1) if kmajor else (1, ld)
        return np.lib.stride_tricks.as_strided(x, (rows, lay.K), tuple(s * x.itemsize for s in st)).astype(np.float64)

    A, B = view(a, lay.a_kmajor, lay.a_ld, lay.M), view(b, lay.b_kmajor, lay.b_ld, lay.N)
    alpha = float(np.float32(alpha))  # (the kernel's alpha parameter is a float32)
    return np.stack([alpha * A[:, z * lay.slice:(z + 1) * lay.slice] @ B[:, z * lay.slice:(z + 1) * lay.slice].T
                     for z in range(lay.slices)]).astype(np.float64 if lay.tile.f64_mma else np.float32)


#: (einsum, extents, order of A, order of B): long sums over rows of odd lengths, modes that merge
CASES = [
    ("mk,nk->mn", dict(m=37, n=23, k=20011), "C", "C"),
    ("km,kn->mn", dict(m=53, n=19, k=9001), "C", "C"),
    ("mk,kn->nm", dict(m=29, n=61, k=7777), "C", "F"),
    ("kab,nk->abn", dict(a=3, b=11, n=45, k=5003), "F", "C"),
    ("mxy,nxy->nm", dict(m=21, n=17, x=97, y=131), "C", "C"),
    ("mk,nk->mn", dict(m=150, n=30, k=4099), "C", "C"),
    ("mk,nk->mn", dict(m=1, n=77, k=3001), "C", "C"),
    ("bmk,bnk->bmn", dict(b=1, m=29, n=13, k=9001), "C", "C"),  # (a batch mode of one index)
]


@pytest.mark.parametrize("dtype", ["f16", "f32"])
@pytest.mark.parametrize("eq,ext,oa,ob", CASES, ids=[c[0] + "-" + c[2] + c[3] for c in CASES])
def test_longk_geometry_reads_every_layout(monkeypatch, eq, ext, oa, ob, dtype):
    """Every tile on every case: the plan's emulated launch plus staged's sum, transpose and copy equal einsum."""
    rng = np.random.default_rng(3)
    npdt = {"f16": np.float16, "f32": np.float32}[dtype]
    (ma, mb), md = eq.split("->")[0].split(","), eq.split("->")[1]
    a = np.asarray(nonzero(rng, [ext[m] for m in ma]).astype(npdt), order=oa)
    b = np.asarray(nonzero(rng, [ext[m] for m in mb]).astype(npdt), order=ob)
    c = nonzero(rng, [ext[m] for m in md]).astype(npdt)
    p, d = _problem(eq, a, b, ext, dtype=dtype, d_dtype=dtype, c=c, op_d=ops.tanh)
    lk = longk_plan(p, DEFAULT_TARGET)
    assert lk is not None and lk.layout.dtype == dtype
    monkeypatch.setattr(klongk, "longk_run", _emulated_run)
    ref = np.tanh(0.5 * np.einsum(eq, a.astype(np.float64), b.astype(np.float64)) - 2.0 * c.astype(np.float64))
    KT = kt(dtype)
    for cand in (c for c in CANDIDATES if c.itemsize == a.itemsize):
        for slice_ in (KT, 4 * KT, 64 * KT):
            lay = LongKLayout(dtype, lk.layout.M, lk.layout.N, lk.layout.K, lk.layout.a_kmajor, lk.layout.a_ld,
                              lk.layout.b_kmajor, lk.layout.b_ld, cand.tile, slice_)
            s = make_schedule(p).__class__(p, make_schedule(p).core, longk=lk.__class__(lay, lk.m_modes, lk.n_modes))
            d[...] = np.nan
            staged._longk(s, np, a, b, c, d, 0.5, -2.0)
            tol = 2e-3 if dtype == "f16" else 1e-4  # (float32 slice sums of ~1e2, tanh of their total)
            np.testing.assert_allclose(d.astype(np.float64), ref, rtol=tol, atol=tol)


def test_longk_geometry_of_views():
    """Reads worked out from strides: k-major and m-major with their leading dimensions, modes merged, extent-1
    modes carried, a view's own strides (every other row)."""
    rng = np.random.default_rng(0)
    base = nonzero(rng, (2 * 33, 1001)).astype(np.float16)
    a = base[::2]  # (rows 2002 values apart)
    b = np.asarray(nonzero(rng, (1001, 7)).astype(np.float16), order="F")  # (b[k, n] at n * 1001 + k)
    p, _ = _problem("mk,kn->mn", a, b, dict(m=33, k=1001, n=7))
    M, N, K, ra, rb, mm, nm = longk_geometry(p)
    assert (M, N, K, ra, rb, mm, nm) == (33, 7, 1001, (True, 2002), (True, 1001), ("m",), ("n",))
    a3 = nonzero(rng, (5, 3, 1, 409)).astype(np.float16)  # m = (a, j) merged; k = (x, y): x of 1, y of 409
    b3 = np.asarray(nonzero(rng, (1, 409, 11)).astype(np.float16))
    p, _ = _problem("ajxy,xyn->ajn", a3, b3, dict(a=5, j=3, x=1, y=409, n=11))
    M, N, K, ra, rb, mm, nm = longk_geometry(p)
    assert (M, N, K, ra, rb) == (15, 11, 409, (True, 409), (False, 11))
    assert (mm, nm) == (("a", "j"), ("n",))


@pytest.mark.parametrize("why", ["batch", "op", "f64", "mixed", "unmerged", "no-unit-stride", "only-in-a"])
def test_longk_refuses(why):
    rng = np.random.default_rng(1)
    h = lambda *s: nonzero(rng, s).astype(np.float16)  # noqa: E731
    if why == "batch":
        p, _ = _problem("bmk,bnk->bmn", h(3, 9, 999), h(3, 5, 999), dict(b=3, m=9, n=5, k=999))
    elif why == "op":
        p, _ = _problem("mk,nk->mn", h(9, 999), h(5, 999), dict(m=9, n=5, k=999), ops_ab=(ops.relu, None))
    elif why == "f64":
        a, b = h(9, 999).astype(np.float64), h(5, 999).astype(np.float64)
        p, _ = _problem("mk,nk->mn", a, b, dict(m=9, n=5, k=999), dtype="f64", d_dtype="f32")
    elif why == "mixed":
        a, b = h(9, 999), h(5, 999)
        p, _ = _problem("mk,nk->mn", a, b, dict(m=9, n=5, k=999))
        p = ContractionProblem(p.a, TensorInfo("B", p.b.modes, p.b.strides, "bf16"), None, p.d, p.extents, "f32")
    elif why == "unmerged":  # (k = (x, y) with a gap between x's rows in A)
        a = h(9, 40, 60)[:, :, :50]
        p, _ = _problem("mxy,nxy->mn", a, h(5, 40, 50), dict(m=9, n=5, x=40, y=50))
    elif why == "no-unit-stride":
        p, _ = _problem("mk,nk->mn", h(9, 2000)[:, ::2], h(5, 1000), dict(m=9, n=5, k=1000))
    else:
        p, _ = _problem("mkz,nk->mn", h(9, 999, 2), h(5, 999), dict(m=9, n=5, k=999, z=2))
    assert longk_geometry(p) is None


def _shape_problem(M, N, K, order="C", dtype="f16"):
    """mk,nk->mn of `dtype` inputs in `order` (strides only: no memory)."""
    st = lambda rows: (K, 1) if order == "C" else (1, rows)  # noqa: E731
    a = TensorInfo("A", ("m", "k"), st(M), dtype)
    b = TensorInfo("B", ("n", "k"), st(N), dtype)
    d = TensorInfo("D", ("m", "n"), (N, 1), dtype)
    return ContractionProblem(a, b, None, d, (("k", K), ("m", M), ("n", N)), "f32")


@pytest.mark.parametrize("M,N,K", [(29, 113, 777777), (77, 45, 2000003), (127, 80, 500001), (17, 61, 1234567)])
def test_planner_takes_longk_for_odd_rows_of_a_long_sum(M, N, K):
    s = make_schedule(_shape_problem(M, N, K))
    assert s.longk is not None and s.longk.layout.K == K
    lay = s.longk.layout
    tiles = -(-M // lay.tile.bm) * -(-N // lay.tile.bn)
    assert tiles <= MAX_TILES and lay.slices * lay.slice >= K > (lay.slices - 1) * lay.slice
    assert s.workspace_bytes == 4 * M * N * (lay.slices + 1)  # (the slices' float32 partials and their sum)


@pytest.mark.parametrize("M,N,K", [(20, 20, 5000001), (17, 61, 1234567), (61, 17, 1234567), (29, 7, 2000003),
                                   (1073, 1, 55493), (90, 40, 1400001)])
def test_planner_takes_longk_for_float32_odd_rows(M, N, K):
    """Row-major float32 rows of odd lengths and a small M x N (a matrix-vector product among them): the GETT core
    reads them in 4-byte pieces into whole narrow tiles, where the long-K kernel reads 16-byte words into tiles as
    small as 128 x 8; on a target with float64 tensor cores it takes their tiles (float64 sums, and a float64
    workspace), on one without, the FMA tiles."""
    import dataclasses

    p = _shape_problem(M, N, K, dtype="f32")
    s = make_schedule(p)
    assert s.longk is not None and s.longk.layout.dtype == "f32" and s.longk.layout.tile.takes("f32")
    assert s.longk.layout.slice % 32 == 0 and s.longk.layout.tile.f64_mma
    assert s.workspace_bytes == 8 * M * N * (s.longk.layout.slices + 1)
    lk = longk_plan(p, dataclasses.replace(DEFAULT_TARGET, dmma=False))
    assert lk is not None and not lk.layout.tile.f64_mma


@pytest.mark.parametrize("M,N,K,order", [(77, 45, 2000003, "C"), (94, 114, 3406031, "C"), (127, 80, 500001, "F")])
def test_float32_keeps_the_float64_sums_of_its_gett_core(M, N, K, order):
    """Where the GETT core of a float32 contraction runs on the float64 tensor cores (float64 sums, as
    gettpy.einsum documents), the long-K kernel may replace it only with its float64-mma tiles, never its float32
    FMA sums, whatever their predicted time; a target without float64 tensor cores has no such tile."""
    import dataclasses

    from gettpy.plan import longk as plongk
    from gettpy.plan.tiles import kernel_spec

    p = _shape_problem(M, N, K, order, dtype="f32")
    assert kernel_spec(make_schedule(p, direct=False).core, False).tf32 == 2
    s = make_schedule(p)
    assert s.longk is None or s.longk.layout.tile.f64_mma
    assert plongk.longk_plan(p, DEFAULT_TARGET, f64_sums=True).layout.tile.f64_mma
    assert plongk.longk_plan(p, dataclasses.replace(DEFAULT_TARGET, dmma=False), f64_sums=True) is None


@pytest.mark.parametrize("align,dtype", [(2, "f32"), (1, "f16")])
def test_longk_refuses_pointers_between_values(align, dtype):
    """A data pointer not aligned to its type (a view at a byte offset): the kernel's reads take whole values."""
    p = _shape_problem(20, 20, 5000001, dtype=dtype)
    p = ContractionProblem(TensorInfo("A", p.a.modes, p.a.strides, dtype, align), p.b, None, p.d, p.extents, "f32")
    assert longk_geometry(p) is None


@pytest.mark.parametrize("M,N,K,order", [(4096, 4096, 4096, "C"), (29, 113, 200, "C"), (1500, 1300, 100003, "C"),
                                         (96, 40, 1048576, "F")])
def test_planner_keeps_gett_elsewhere(M, N, K, order):
    """A square GEMM, a short sum, an M x N of many tiles, aligned rows (16-byte vectors read at full speed)."""
    assert make_schedule(_shape_problem(M, N, K, order)).longk is None


@pytest.mark.parametrize("rows", [8, 16, 24, 32, 40, 64, 96, 128])
def test_f64_row_puts_a_fragment_load_in_32_banks(rows):
    """The float64-mma tile's k rows: lane (g, t) of a fragment load reads word t * row + g (g < 8, t < 4); every
    row length the tiles use sends the 32 lanes to 32 different banks, and holds the tile's values."""
    from gettpy.kernels.longk import f64_row

    row = f64_row(rows)
    assert row >= rows and row % 4 == 0  # (16-byte stores of whole vectors into a row)
    assert len({(t * row + g) % 32 for g in range(8) for t in range(4)}) == 32


def test_float64_sums_scale_by_alpha_at_full_precision(monkeypatch):
    """On float64-mma tiles D is the float64 product times alpha, rounded once to float32: alpha = 0.1 is applied in
    float64 after the slices' sum, not as the kernel's float32 alpha (0.1 rounded: a quarter of a float32 unit
    off, which rounds many outputs the other way)."""
    rng = np.random.default_rng(9)
    M, N, K = 37, 23, 20011
    a, b = nonzero(rng, (M, K)).astype(np.float32), nonzero(rng, (N, K)).astype(np.float32)
    p, d = _problem("mk,nk->mn", a, b, dict(m=M, n=N, k=K), dtype="f32", d_dtype="f32")
    lk = longk_plan(p, DEFAULT_TARGET, f64_sums=True)
    assert lk.layout.tile.f64_mma
    monkeypatch.setattr(klongk, "longk_run", _emulated_run)
    s = make_schedule(p).__class__(p, make_schedule(p).core, longk=lk)
    staged._longk(s, np, a, b, None, d, 0.1, 0.0)
    ref = 0.1 * (a.astype(np.float64) @ b.astype(np.float64).T)
    assert (d == ref.astype(np.float32)).all(), int((d != ref.astype(np.float32)).sum())


def test_float64_mma_tiles_follow_f64_cores():
    """make_schedule(f64_cores=False) keeps the long-K kernel off the float64 tensor cores too."""
    p = _shape_problem(20, 20, 5000001, dtype="f32")
    s = make_schedule(p, f64_cores=False)
    assert s.longk is None or not s.longk.layout.tile.f64_mma
    assert longk_plan(p, DEFAULT_TARGET, f64_sums=True, f64_cores=False) is None
