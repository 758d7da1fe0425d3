"""The schedules of complex contractions, and the CPU executor's results on them.

Complex plans that run on the one-launch complex kernel (a complex D, every pointer aligned to its element) read
A and B in place: their schedules have no packs and no staged output, in both memory orders, on views, odd
extents, batch modes and tensor contractions (operands large enough, and re-read enough, that the real kernels'
rules would pack them). A pack appears only where the sector model says a gathered operand's re-reads cost more
than the copy; the real-launch fallback (a real D, an operand not aligned to its element) keeps the real rules,
but never packs an input not aligned to its element. Every case also runs on the CPU executor (numpy arrays, the
same schedules) against numpy in complex128.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import gettpy
from gettpy import ops
from gettpy.api import TensorDescriptor
from gettpy.plan import schedule as sched

#: the GPU's schedules (their stagings) run on the CPU executor here: see conftest.py
pytestmark = pytest.mark.usefixtures("gpu_schedules_on_the_cpu")


#: |got - ref| <= TOL * (sum of |a| |b| over the summed terms + 1)
TOL = {np.complex64: 2e-6, np.complex128: 1e-13}


def _values(rng, shape, dtype):
    x = rng.uniform(-1, 1, shape) + (1j * rng.uniform(-1, 1, shape) if np.dtype(dtype).kind == "c" else 0)
    return x.astype(dtype)


def _layout(x, kind):
    """`x`'s values laid out as `kind`: "C", "F", "view" (a window of a larger array: stride-1 rows, a pointer
    past the start), "rows" (every other element along the first axis only), "gathered" (every other element
    along every axis: no stride-1 run)."""
    if kind == "C":
        return np.ascontiguousarray(x)
    if kind == "F":
        return np.asfortranarray(x)
    if kind == "view":
        big = np.zeros(tuple(e + 3 for e in x.shape), x.dtype)
        window = big[tuple(slice(1, 1 + e) for e in x.shape)]
        window[...] = x
        return window
    step = {"rows": (2,) + (1,) * (x.ndim - 1), "gathered": (2,) * x.ndim}[kind]
    big = np.zeros(tuple(e * s for e, s in zip(x.shape, step, strict=True)), x.dtype)
    view = big[tuple(slice(None, None, s) for s in step)]
    view[...] = x
    return view


def _close(got, ref, mag, dtype):
    g = np.asarray(got).astype(np.complex128)
    assert not np.isnan(g).any(), "an element was never written"
    err = np.abs(g - ref)
    assert (err <= TOL[dtype] * (mag + 1.0)).all(), float(err.max())


def _magnitude(subs, a, b):
    return np.einsum(subs, np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))


def _schedule(subs, a, b, out, op_a=None):
    """The schedule gettpy.plan makes for `subs` on these arrays (D = out)."""
    lhs, md = subs.split("->")
    ma, mb = lhs.split(",")
    da = TensorDescriptor.of(a, op_a)
    dd = TensorDescriptor.of(out)
    return gettpy.plan(da, ma, TensorDescriptor.of(b), mb, dd, md, dd, md).plan


def _shapes(subs, ext):
    lhs, md = subs.split("->")
    ma, mb = lhs.split(",")
    return tuple(ext[m] for m in ma), tuple(ext[m] for m in mb), tuple(ext[m] for m in md)


# (subscripts, extents, layout of A, layout of B): operands of at least 4096 elements, each re-read by several CTA
# rows or columns, odd extents (no 16-byte vectors along any mode)
CASES = [
    ("ik,kj->ij", dict(i=131, k=67, j=97), "C", "C"),
    ("ik,kj->ij", dict(i=131, k=67, j=97), "F", "F"),
    ("ik,kj->ij", dict(i=131, k=67, j=97), "F", "C"),
    ("ik,jk->ij", dict(i=129, k=75, j=141), "view", "view"),
    ("ik,kj->ij", dict(i=125, k=71, j=99), "rows", "rows"),
    ("ki,kj->ij", dict(i=133, k=81, j=95), "gathered", "C"),
    ("bik,bkj->bij", dict(b=3, i=61, k=45, j=77), "C", "F"),
    ("bik,jkb->bji", dict(b=5, i=47, k=39, j=53), "F", "view"),
    ("abc,cbd->ad", dict(a=67, b=9, c=11, d=83), "C", "C"),
    ("acb,dbc->dba", dict(a=35, b=7, c=29, d=41), "F", "rows"),
]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("subs,ext,la,lb", CASES)
def test_one_launch_schedule_reads_in_place(subs, ext, la, lb, dtype, rng):
    sa, sb, sd = _shapes(subs, ext)
    a, b = _layout(_values(rng, sa, dtype), la), _layout(_values(rng, sb, dtype), lb)
    out = np.full(sd, np.nan, dtype)
    s = _schedule(subs, a, b, out)
    assert s.pack_a is None and s.pack_b is None and s.stage_d is None and not s.staged, s
    assert sched.one_launch(s.problem)
    # the real kernels' rules would have packed at least one of them (a test with teeth)
    assert max(math.prod(sa), math.prod(sb)) >= sched.MIN_STAGE_ELEMS
    # the CPU executor on the same schedule: numpy's result
    got = gettpy.einsum(subs, a, b, out=out)
    _close(got, np.einsum(subs, a.astype(np.complex128), b.astype(np.complex128)), _magnitude(subs, a, b), dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("case", [0, 3, 6, 8])
def test_contraction_alpha_beta_conj_on_cpu(case, dtype, rng):
    """Contraction with conj on A, complex alpha and beta and a C read: no stagings, numpy's result."""
    subs, ext, la, lb = CASES[case]
    sa, sb, sd = _shapes(subs, ext)
    a, b = _layout(_values(rng, sa, dtype), la), _layout(_values(rng, sb, dtype), lb)
    c = _layout(_values(rng, sd, dtype), "F")
    out = np.full(sd, np.nan, dtype)
    con = gettpy.Contraction(subs, a, b, c=c, out=out, ops=[ops.conj, None])
    assert not con.plan().plan.staged
    alpha, beta = 0.5 - 1.5j, 2 + 0.25j
    con.execute(alpha, beta)
    ref = alpha * np.einsum(subs, np.conj(a.astype(np.complex128)), b.astype(np.complex128)) + beta * c
    _close(out, ref, abs(alpha) * _magnitude(subs, a, b) + abs(beta), dtype)


def test_real_inputs_into_complex_output_read_in_place(rng):
    """float64 operands contracted into a complex128 out: the complex kernel (compute c128), inputs in place."""
    subs = "ik,kj->ij"
    a, b = _layout(_values(rng, (131, 67), np.float64), "F"), _values(rng, (67, 97), np.float64)
    out = np.full((131, 97), np.nan, np.complex128)
    s = _schedule(subs, a, b, out)
    assert sched.one_launch(s.problem) and not s.staged
    got = gettpy.einsum(subs, a, b, out=out)
    _close(got, np.einsum(subs, a, b).astype(np.complex128), _magnitude(subs, a, b), np.complex128)


# ------------------------------------------------------------------------------------------------ the pack rule
def _desc(extents, strides, dtype, alignment=16):
    return TensorDescriptor(extents, strides, dtype, alignment=alignment)


@pytest.mark.parametrize("dtype,itemsize", [("complex64", 8), ("complex128", 16)])
@pytest.mark.parametrize("step,packs", [(1, False), (2, None), (4, True), (8, True)])
def test_pack_only_a_large_gathered_reread_operand(dtype, itemsize, step, packs):
    """A of 2048 x 2048 read with `step` between its elements along both modes, re-read by every CTA column of a
    4096-wide B: packed where a sector holds one element of it (step * itemsize >= 32), read in place where it
    has stride-1 runs; between, the model decides (complex64, step 2: two elements a sector, packed; complex128,
    step 2: a sector each, packed)."""
    m = k = 2048
    n = 4096
    da = _desc((m, k), (k * step * step, step), dtype)  # row-major, every step-th row and column
    db = _desc((k, n), (n, 1), dtype)
    dd = _desc((m, n), (n, 1), dtype)
    s = gettpy.plan(da, "ik", db, "kj", dd, "ij").plan
    assert sched.one_launch(s.problem)
    assert s.pack_b is None and s.stage_d is None
    w = min(32, step * itemsize) / itemsize if step > 1 else 1.0
    want = w > 1 if packs is None else packs  # (rereads of 4096 / 128 at least: 2 * (w - 1) * 16 > w + 1 + launch)
    assert (s.pack_a is not None) == want, (step, dtype, s.pack_a)


def test_pack_rule_counts_rereads_and_size():
    """The same gathered complex64 layout packed when large and re-read by many CTAs; in place when read by one
    CTA column (N within one tile) or small (the launch costs more than the re-reads' waste)."""
    def pack_a(m, k, n):
        da = _desc((m, k), (4 * 4 * k, 4), "complex64")
        s = gettpy.plan(da, "ik", _desc((k, n), (n, 1), "complex64"), "kj", _desc((m, n), (n, 1), "complex64"),
                        "ij").plan
        return s.pack_a is not None

    assert pack_a(2048, 2048, 4096)
    assert not pack_a(2048, 2048, 16)  # (read once: one CTA column)
    assert not pack_a(64, 64, 4096)  # (32 KB: the launch dominates)


def test_fetch_ratio_model():
    """plan/traffic.py's fetch_ratio (which the complex kernel's pack rule reads) against counting the 32-byte
    sectors of the elements by hand."""
    from gettpy.layouts.descriptor import build_dim_map
    from gettpy.plan.traffic import fetch_ratio

    def by_hand(offsets, itemsize):
        sectors = {(o * itemsize + j) // 32 for o in offsets for j in range(itemsize)}
        return len(sectors) * 32 / (len(offsets) * itemsize)

    for extents, strides, itemsize, span in [((64,), (1,), 8, 16), ((5, 9), (1, 40), 8, 5), ((64,), (4,), 8, 16),
                                             ((64,), (2,), 8, 16), ((64,), (3,), 16, 8), ((8, 8), (1, 8), 16, 8)]:
        dm = build_dim_map(extents, strides)
        terms = list(enumerate(zip(extents, strides, strict=True)))
        offsets = [sum(((g // math.prod(extents[:i])) % e) * s for i, (e, s) in terms) for g in range(span)]
        assert fetch_ratio(dm, itemsize, span) == pytest.approx(by_hand(offsets, itemsize)), (extents, strides)


# ------------------------------------------------------------------------------------------ the real-launch fallback
@pytest.mark.parametrize("what", ["real D", "under-aligned D"])
def test_fallback_keeps_the_real_rules(what):
    """A complex plan that runs as real launches (a real D, or a D aligned below its element) is not a one-launch
    plan, and keeps the real rules: an odd-extent GEMM's operands (no 16-byte vectors) are packed."""
    m, k, n = 515, 515, 515
    dd = _desc((m, n), (n, 1), "float32") if what == "real D" else _desc((m, n), (n, 1), "complex64", 4)
    s = gettpy.plan(_desc((m, k), (k, 1), "complex64"), "ik", _desc((k, n), (n, 1), "complex64"), "kj", dd,
                    "ij").plan
    assert not sched.one_launch(s.problem)
    assert s.pack_a is not None or s.pack_b is not None
    aligned = gettpy.plan(_desc((m, k), (k, 1), "complex64"), "ik", _desc((k, n), (n, 1), "complex64"), "kj",
                          _desc((m, n), (n, 1), "complex64"), "ij").plan
    assert sched.one_launch(aligned.problem) and not aligned.staged


@pytest.mark.filterwarnings("ignore:Casting complex values to real")
def test_real_output_on_cpu(rng):
    """complex64 operands into a float32 D through plan / contract on the CPU: D is the real part of the product."""
    a, b = _values(rng, (131, 67), np.complex64), _layout(_values(rng, (67, 97), np.complex64), "F")
    d = np.full((131, 97), np.nan, np.float32)
    desc = TensorDescriptor.of
    p = gettpy.plan(desc(a), "ik", desc(b), "kj", desc(d), "ij")
    assert not sched.one_launch(p.plan.problem)
    gettpy.contract(p, 1.0, a, b, 0.0, None, d)
    ref = a.astype(np.complex128) @ b.astype(np.complex128)
    assert np.abs(d - ref.real).max() <= TOL[np.complex64] * (_magnitude("ik,kj->ij", a, b).max() + 1.0)


def _under_aligned(x):
    """A copy of complex64 `x` whose data pointer is 4 bytes past an 8-byte boundary (inside a float32 buffer)."""
    buf = np.zeros(2 * x.size + 2, np.float32)
    y = buf[1:-1].view(np.complex64).reshape(x.shape)
    y[...] = x
    return y


@pytest.mark.parametrize("shape", [(131, 67), (515, 515)])
def test_under_aligned_input_read_in_place(shape, rng):
    """An input not aligned to its element: not a one-launch plan (the real launches read its planes), and never
    packed (a copy would load whole elements from it); the CPU executor gives numpy's result."""
    a = _under_aligned(_values(rng, shape, np.complex64))
    b = _values(rng, (shape[1], 97), np.complex64)
    out = np.full((shape[0], 97), np.nan, np.complex64)
    assert int(a.ctypes.data) % 8 == 4
    s = _schedule("ik,kj->ij", a, b, out)
    assert not sched.one_launch(s.problem) and s.pack_a is None
    got = gettpy.einsum("ik,kj->ij", a, b, out=out)
    _close(got, np.einsum("ik,kj->ij", a.astype(np.complex128), b.astype(np.complex128)),
           _magnitude("ik,kj->ij", a, b), np.complex64)


@pytest.fixture
def free_packs(monkeypatch):
    """The pack step's fixed cost (FUSED_PACK_US) set to 0, plan caches emptied before and after: small gathered
    inputs get the packs that large ones get at the real cost."""
    from gettpy.plan.cache import clear_plan_cache

    monkeypatch.setattr(sched, "FUSED_PACK_US", 0.0)
    clear_plan_cache()
    yield
    clear_plan_cache()


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_packed_schedule_runs_on_cpu(free_packs, dtype, rng):
    """A schedule that packs a gathered complex input (every 4th element of a larger array along both modes,
    re-read by many CTA columns): the CPU executor's pack and core give numpy's result."""
    subs = "ik,kj->ij"
    big = _values(rng, (1024, 1024), dtype)
    a = big[::4, ::4]
    b = _values(rng, (256, 2048), dtype)
    out = np.full((256, 2048), np.nan, dtype)
    s = _schedule(subs, a, b, out)
    assert sched.one_launch(s.problem) and s.pack_a is not None and s.pack_b is None and s.stage_d is None
    got = gettpy.einsum(subs, a, b, out=out)
    _close(got, np.einsum(subs, a.astype(np.complex128), b.astype(np.complex128)), _magnitude(subs, a, b), dtype)


@pytest.mark.parametrize("dt", ["f16", "f32", "f64"])
@pytest.mark.parametrize("compute", ["c64", "c128"])
def test_real_tensors_in_a_complex_compute_type_plan_without_a_c(dt, compute):
    """Real A, B and D summed in a complex compute type with no C: the schedule is planned (the traffic model's
    restage pass, which prices real kernels only, is skipped; it raised a KernelError here)."""
    from gettpy.plan.problem import ContractionProblem, TensorInfo
    from gettpy.plan.schedule import make_schedule

    p = ContractionProblem(TensorInfo("A", ("m", "k"), (64, 1), dt), TensorInfo("B", ("k", "n"), (48, 1), dt), None,
                           TensorInfo("D", ("m", "n"), (48, 1), dt), (("k", 64), ("m", 40), ("n", 48)),
                           compute=compute)
    s = make_schedule(p)
    assert s.problem == p and s.core.problem.compute == compute
