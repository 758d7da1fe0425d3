"""The direct kernel's layout (gettpy.plan.direct, gettpy.kernels.direct) on the CPU: every offset it computes
against an enumeration of every coordinate, its arithmetic emulated in numpy against np.einsum in float64, the
planner's choice of it by the traffic model, and its schedules run through `backends.staged.run`."""
from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from harness import assert_close, nonzero, problem_of
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gettpy import ops
from gettpy.backends import cpu, staged
from gettpy.kernels.direct import MAX_K, DirectLayout
from gettpy.plan.direct import choose_direct, direct_layout, direct_us
from gettpy.plan.problem import ContractionProblem, TensorInfo
from gettpy.plan.schedule import make_schedule
from gettpy.plan.target import DEFAULT_TARGET


def _strided(rng, shape, perm, steps, flip, dtype=np.float64):
    """A view of `shape` into a larger buffer: axes laid out in order `perm`, every `steps` element along each
    axis, axes in `flip` reversed (negative strides)."""
    if not shape:
        return np.full((), nonzero(rng, (1,), dtype)[0])
    base_shape = tuple(shape[p] * steps[p] for p in perm)
    base = nonzero(rng, base_shape, dtype)
    view = base[tuple(slice(None, None, steps[p]) for p in perm)]
    view = view.transpose(np.argsort(perm))
    return view[tuple(slice(None, None, -1) if i in flip else slice(None) for i in range(len(shape)))]


#: (einsum, extents): K = 1 (outer, Hadamard, scaling, batched outer), short sums, a 0-d output, modes of extent 1
CASES = [
    ("abij,ij->abij", dict(a=5, b=4, i=3, j=6)),
    ("ij,j->ij", dict(i=7, j=9)),
    ("bi,bj->bij", dict(b=5, i=6, j=7)),
    ("i,j->ij", dict(i=11, j=13)),
    ("ij,ab->ijab", dict(a=3, b=4, i=5, j=2)),
    ("abij,ji->abij", dict(a=3, b=4, i=5, j=6)),
    ("sab,sij->abij", dict(s=2, a=3, b=4, i=5, j=3)),
    ("sxa,tsb->abx", dict(s=3, t=5, a=4, b=6, x=2)),
    ("ab,ab->", dict(a=3, b=5)),
    ("xab,b->ax", dict(x=1, a=9, b=4)),
]


def _arrays(rng, eq, ext, layout_seed: int, dtype=np.float64):
    lhs, out = eq.split("->")
    r = np.random.default_rng(layout_seed)
    arrs = []
    for modes in (*lhs.split(","), out, out):
        shape = tuple(ext[m] for m in modes)
        perm = tuple(r.permutation(len(shape)))
        steps = tuple(int(s) for s in r.integers(1, 3, len(shape)))
        flip = {i for i in range(len(shape)) if r.random() < 0.3}
        arrs.append(_strided(rng, shape, perm, steps, flip, dtype))
    return arrs


def _enumerated(p: ContractionProblem):
    """Counter of (A, B, C, D) offsets over every coordinate of D's modes, and of (A, B) over the summed modes."""
    ext = dict(p.extents)
    tensors = [p.a, p.b, p.c, p.d]
    free = list(p.d.modes)
    out = Counter()
    for coord in itertools.product(*(range(ext[m]) for m in free)):
        at = dict(zip(free, coord, strict=True))
        out[tuple(sum(at.get(m, 0) * s for m, s in zip(t.modes, t.strides, strict=True)) if t else 0
                  for t in tensors)] += 1
    ks = [m for m in dict.fromkeys(p.a.modes + p.b.modes) if m not in p.d.modes]
    kout = Counter()
    for coord in itertools.product(*(range(ext[m]) for m in ks)):
        at = dict(zip(ks, coord, strict=True))
        kout[tuple(sum(at.get(m, 0) * s for m, s in zip(t.modes, t.strides, strict=True)) for t in (p.a, p.b))] += 1
    return out, kout


@pytest.mark.parametrize("layout_seed", [0, 1, 2])
@pytest.mark.parametrize("eq,ext", CASES, ids=[c[0] for c in CASES])
def test_offsets_cover_every_coordinate(eq, ext, layout_seed):
    """The layout's offsets of the flat indices are those of every coordinate of D, once each; its summed offsets
    those of every summed coordinate (axes merged and sorted however the strides allow)."""
    a, b, c, d = _arrays(np.random.default_rng(1), eq, ext, layout_seed)
    p = problem_of(eq, a, b, c, d)
    lay = direct_layout(p)
    assert lay is not None
    offs = lay.offsets(np.arange(lay.total, dtype=np.int64))
    got = Counter(zip(offs["a"].tolist(), offs["b"].tolist(), offs["c"].tolist(), offs["d"].tolist(), strict=True))
    want, kwant = _enumerated(p)
    assert got == want
    assert Counter(lay.k_offsets()) == kwant


def _emulate(lay: DirectLayout, p: ContractionProblem, a, b, c, d, alpha, beta):
    """The kernel's arithmetic in numpy on flat views of the operands' buffers (offsets from element 0)."""
    bufs = {}
    for name, x in (("a", a), ("b", b), ("c", c), ("d", d)):
        if x is None:
            continue
        lo = sum(min(0, (n - 1) * s) for n, s in zip(x.shape, x.strides, strict=True))
        first = x.__array_interface__["data"][0] + lo
        size = (sum(abs((n - 1) * s) for n, s in zip(x.shape, x.strides, strict=True)) // x.itemsize) + 1
        buf = np.ctypeslib.as_array((np.ctypeslib.as_ctypes_type(x.dtype) * size).from_address(first))
        bufs[name] = (buf, -lo // x.itemsize)
    g = np.arange(lay.total, dtype=np.int64)
    o = lay.offsets(g)
    acc = np.zeros(lay.total)
    for ka, kb in lay.k_offsets():
        xa = p.a.op(bufs["a"][0][bufs["a"][1] + o["a"] + ka].astype(np.float64))
        xb = p.b.op(bufs["b"][0][bufs["b"][1] + o["b"] + kb].astype(np.float64))
        acc += xa * xb
    r = alpha * acc
    if c is not None and beta != 0:
        r = r + beta * p.c.op(bufs["c"][0][bufs["c"][1] + o["c"]].astype(np.float64))
    bufs["d"][0][bufs["d"][1] + o["d"]] = p.d.op(r)


def _emulated(eq, ext, seed, op, alpha, beta):
    """(A, B, C, D, problem, layout): D (NaN first) computed by `_emulate` on random views drawn from `seed`."""
    a, b, c, d = _arrays(np.random.default_rng(seed), eq, ext, seed)
    d[...] = np.nan
    p = problem_of(eq, a, b, c, d, op)
    lay = direct_layout(p)
    assert lay is not None
    _emulate(lay, p, a, b, c, d, alpha, beta)
    return a, b, c, d, p, lay


@pytest.mark.parametrize("layout_seed", [3, 4])
@pytest.mark.parametrize("eq,ext", CASES, ids=[c[0] for c in CASES])
def test_emulated_kernel_matches_einsum(eq, ext, layout_seed):
    """D = op_d(alpha sum_k op_a(A) op_b(B) + beta op_c(C)) through the layout's offsets, on strided, permuted and
    reversed views, equals np.einsum in float64."""
    a, b, c, d, _, _ = _emulated(eq, ext, layout_seed, (ops.relu, ops.neg, ops.abs, ops.tanh), 0.75, -1.25)
    ref = np.tanh(0.75 * np.einsum(eq, np.maximum(a, 0), -b) - 1.25 * np.abs(c))
    assert_close(d, ref, np.float64)


def _dense(eq, ext, dt="f32", order="C", compute=""):
    lhs, out = eq.split("->")

    def info(name, modes):
        shape = [ext[m] for m in modes]
        strides, acc = [0] * len(modes), 1
        for i in (range(len(modes) - 1, -1, -1) if order == "C" else range(len(modes))):
            strides[i], acc = acc, acc * shape[i]
        return TensorInfo(name, tuple(modes), tuple(strides), dt)

    a, b = lhs.split(",")
    return ContractionProblem(info("A", a), info("B", b), None, info("D", out), tuple(sorted(ext.items())), compute)


@pytest.mark.parametrize("eq,ext,order", [
    ("abij,ij->abij", dict(a=113, b=113, i=29, j=29), "C"),  # (a Hadamard product over batch modes leading D)
    ("ij,j->ij", dict(i=3000, j=5001), "C"),                 # (columns scaled: M x 1 tiles, one batch index each)
    ("bi,bj->bij", dict(b=35, i=2156, j=823), "F"),          # (a batched outer product led by its batch mode)
    ("bij,bi->bij", dict(b=37, i=2000, j=1001), "F"),
    ("bk,bkn->bn", dict(b=100003, k=3, n=37), "F"),           # (a GEMV of M = 1 over zero-filled packs, unpriced)
])
@pytest.mark.parametrize("dt", ["f16", "f32"])
def test_direct_chosen_where_the_tile_does_not_fit(eq, ext, order, dt):
    p = _dense(eq, ext, dt, order)
    s = make_schedule(p)
    assert s.direct is not None and s.direct == direct_layout(p)
    assert s.pack_a is None and s.pack_b is None and s.stage_d is None


@pytest.mark.parametrize("eq,ext", [
    ("ik,kj->ij", dict(i=2000, j=2000, k=2000)),  # (a GEMM: K past the kernel's sum)
    ("sab,sij->abij", dict(s=12, a=60, b=60, i=29, j=29)),  # (a sum of 12: tiles that reuse their inputs win)
    # (an MPS update with K = 12 and M, N > 1: its CTAs overlap their fixed costs; measured 3x faster on GETT)
    ("cvptb-wcstb-wvsp", dict(b=387, c=387, p=4, s=4, t=4, v=3, w=3)),
])
@pytest.mark.parametrize("dt", ["f16", "f32"])
def test_direct_not_chosen_where_the_tile_is_as_fast(eq, ext, dt):
    if "->" not in eq:  # (TCCG's notation: D-A-B)
        d, a, b = eq.split("-")
        eq = f"{a},{b}->{d}"
    p = _dense(eq, ext, dt, "C")
    assert make_schedule(p).direct is None


def test_direct_layout_refuses_what_its_kernel_lacks():
    ext = dict(a=50, b=40, i=3)
    assert direct_layout(_dense("ai,bi->ab", ext, "f32")) is not None
    for dt in ("c64", "i32", "i8", "b1"):
        assert direct_layout(_dense("ai,bi->ab", ext, dt)) is None, dt
    assert direct_layout(_dense("ai,bi->ab", ext, "f32", compute="tf32")) is None
    p = _dense("ai,bi->ab", ext, "f32")
    assert direct_layout(ContractionProblem(p.a, p.b, None, p.d, p.extents, semiring=ops.max_plus)) is None
    assert direct_layout(_dense("ai,bi->ab", dict(a=50, b=40, i=MAX_K + 1), "f32")) is None
    assert direct_layout(_dense("ai,bi->ab", dict(a=0, b=40, i=3), "f32")) is None


def test_lanes_take_more_values_where_the_stream_is_the_stores():
    """8 values a lane where the inputs are small beside D (outer and broadcast products), 4 where an input is D's
    size, half either for a sum of more than 4 values."""
    assert direct_layout(_dense("i,j->ij", dict(i=3000, j=2000))).vec == 8
    assert direct_layout(_dense("bi,bj->bij", dict(b=35, i=300, j=200), order="F")).vec == 8
    assert direct_layout(_dense("ij,j->ij", dict(i=3000, j=2000))).vec == 4
    assert direct_layout(_dense("sab,sij->abij", dict(s=6, a=40, b=40, i=20, j=20))).vec == 4
    assert direct_layout(_dense("sab,sij->abij", dict(s=2, a=40, b=40, i=20, j=20))).vec == 8


def test_pairs_where_every_unit_is_an_aligned_word():
    """Two neighbouring values a unit only for a 2-byte D running along its fastest axis of even extent, the inputs
    running along it or constant, and every 2-byte input that runs along it at even offsets."""
    assert direct_layout(_dense("abij,abij->abij", dict(a=6, b=5, i=4, j=8), "f16")).pairs
    assert direct_layout(_dense("abij,abij->abij", dict(a=6, b=5, i=4, j=8), "bf16")).pairs
    assert direct_layout(_dense("ij,j->ij", dict(i=7, j=10), "f16")).pairs  # (j even: every row starts even)
    assert not direct_layout(_dense("ij,j->ij", dict(i=10, j=7), "f16")).pairs  # (rows of 7)
    assert direct_layout(_dense("abij,abij->abij", dict(a=5, b=3, i=7, j=9), "f16")).pairs  # (one axis: its last
    #                                                                                       unit one value)
    assert not direct_layout(_dense("abij,abij->abij", dict(a=6, b=5, i=4, j=8), "f32")).pairs
    assert not direct_layout(_dense("ij,ji->ij", dict(i=8, j=10), "f16")).pairs  # (B across its runs)
    p = _dense("sab,sij->abij", dict(s=3, a=4, b=6, i=2, j=2), "f16", "F")  # (A along a with stride s = 3)
    assert not direct_layout(p).pairs
    odd = _dense("ij,j->ij", dict(i=7, j=10), "f16")
    odd = ContractionProblem(TensorInfo("A", ("i", "j"), (11, 1), "f16"), odd.b, None, odd.d, odd.extents)
    assert not direct_layout(odd).pairs  # (A's rows 11 apart: every other row starts odd)
    lay = direct_layout(ContractionProblem(odd.a, odd.b, None, TensorInfo("D", ("i", "j"), (10, 1), "f32"),
                                           odd.extents))
    assert not lay.pairs  # (a 4-byte D)


def test_model_prices_reads_across_runs_and_rereads():
    """An input read across its runs costs a sector an element; a large input re-read for every value of a free
    mode it lacks costs its re-reads that miss the L2 cache."""
    t = DEFAULT_TARGET
    along = _dense("ij,ij->ij", dict(i=4000, j=4000), "f32", "C")
    across = ContractionProblem(along.a, TensorInfo("B", ("i", "j"), (1, 4000), "f32"), None, along.d, along.extents)
    assert direct_us(direct_layout(across), across, t) > 2 * direct_us(direct_layout(along), along, t)
    small = _dense("ij,j->ij", dict(i=4000, j=4000), "f32", "C")
    big = _dense("ijk,jk->ijk", dict(i=64, j=4000, k=1000), "f32", "C")
    per_elem = lambda p: direct_us(direct_layout(p), p, t) / direct_layout(p).total  # noqa: E731
    assert per_elem(big) > per_elem(small)
    assert choose_direct(_dense("ik,kj->ij", dict(i=100, j=100, k=100), "f32"), None, t, t.sm_count) is None


@pytest.mark.parametrize("eq,ext,order", [
    ("abij,ij->abij", dict(a=40, b=40, i=29, j=29), "C"),
    ("bi,bj->bij", dict(b=35, i=600, j=200), "F"),
])
def test_direct_schedule_runs_on_the_cpu(eq, ext, order):
    """A direct schedule on numpy arrays (backends.staged.run) runs the plan of the problem as posed: equal to
    np.einsum."""
    rng = np.random.default_rng(5)
    lhs, out = eq.split("->")
    conv = np.ascontiguousarray if order == "C" else np.asfortranarray
    a, b = (conv(nonzero(rng, [ext[m] for m in x]).astype(np.float32)) for x in lhs.split(","))
    d = conv(np.full([ext[m] for m in out], np.nan, dtype=np.float32))
    p = problem_of(eq, a, b, None, d)
    s = make_schedule(p)
    assert s.direct is not None
    staged.run(s, np, cpu.execute, a, b, None, d, 1.0, 0.0)
    assert_close(d, np.einsum(eq, a.astype(np.float64), b.astype(np.float64)), np.float32)


def test_unpriceable_schedule_stays_as_planned(monkeypatch):
    """Where the traffic model cannot specialise the planned core (a KernelError), the schedule is kept as planned,
    not lost."""
    from gettpy.errors import KernelError
    from gettpy.plan import direct

    def refuse(*a, **k):
        raise KernelError("no kernel for this core")

    p = _dense("abij,ij->abij", dict(a=113, b=113, i=29, j=29), "f32")
    monkeypatch.setattr(direct, "_cta_us", refuse)
    s = make_schedule(p)
    assert s.direct is None and s.core is not None
    assert choose_direct(p, s, DEFAULT_TARGET, DEFAULT_TARGET.sm_count) is None


@st.composite
def _short_sum(draw):
    """(einsum, extents, layout seed): A and B of 0-4 unique modes each from a pool of 6, D some of their modes (a
    mode may sit in one input only: summed there, or free), extents 1-5 with the summed values at most MAX_K."""
    pool = "abcdef"
    ext = {m: draw(st.integers(1, 5)) for m in pool}
    ma = draw(st.lists(st.sampled_from(pool), unique=True, max_size=4))
    mb = draw(st.lists(st.sampled_from(pool), unique=True, max_size=4))
    used = sorted(set(ma) | set(mb))
    md = draw(st.permutations(draw(st.lists(st.sampled_from(used), unique=True, max_size=len(used))) if used else []))
    ksum = [m for m in used if m not in md]
    assume(math.prod(ext[m] for m in ksum) <= MAX_K)
    return f"{''.join(ma)},{''.join(mb)}->{''.join(md)}", ext, draw(st.integers(0, 2**31))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=_short_sum())
def test_fuzz_layout_and_emulated_kernel(case):
    """Random short sums on random views (permuted, stepped, reversed), with C, ops, alpha and beta: the layout's
    offsets are every coordinate's once, and its arithmetic equals np.einsum in float64."""
    eq, ext, seed = case
    a, b, c, d, p, lay = _emulated(eq, ext, seed, (ops.relu, ops.identity, ops.neg, ops.identity), -0.5, 1.5)
    offs = lay.offsets(np.arange(lay.total, dtype=np.int64))
    got = Counter(zip(offs["a"].tolist(), offs["b"].tolist(), offs["c"].tolist(), offs["d"].tolist(), strict=True))
    want, kwant = _enumerated(p)
    assert got == want and Counter(lay.k_offsets()) == kwant
    ref = -0.5 * np.einsum(eq, np.maximum(a, 0), b) + 1.5 * -c
    assert_close(d, ref, np.float64)
