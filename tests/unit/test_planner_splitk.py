"""Split-K of a long K over a small output, sized by the model (gettpy/plan/splitk.py), for any extent:
shapes that are in no benchmark (prime and odd K, both memory orders, views, several k modes, dot products
and matrix-vector products), planned and run end to end on the CPU executor against numpy in float64."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from harness import assert_each_close, dense_problem, extents_of, laid_out

import gettpy
from gettpy.plan.cache import cached_schedule, clear_plan_cache
from gettpy.plan.problem import ContractionProblem
from gettpy.plan.schedule import make_schedule
from gettpy.plan.split import SPLIT_SUFFIX
from gettpy.plan.splitk import (
    MIN_RUN,
    SLICE_ALIGN,
    STREAM_CTAS_PER_SM,
    SplitTile,
    best_slices,
    choose_cut,
    cut,
    split_model_us,
)
from gettpy.plan.target import DEFAULT_TARGET, H100_SXM, Target

#: the GPU's schedules (their stagings) run on the CPU executor here: see conftest.py; the GETT schedules of long-K
#: shapes, which the long-K kernel would otherwise take
pytestmark = pytest.mark.usefixtures("gpu_schedules_on_the_cpu", "gett_tiles_only")


TOL = {np.float16: 2e-3, np.float32: 2e-5, np.float64: 1e-12}


def _problem(eq: str, shapes, dtype: str, order: str = "C") -> ContractionProblem:
    """The problem of 'ab,bc->ac' on dense tensors in `order` (C: last mode fastest)."""
    return dense_problem(eq, extents_of(eq, shapes), dtype, order)


def _covered(s) -> int:
    """Values of the split mode that a split schedule's core and tails cover together."""
    mode = s.split_mode[:-len(SPLIT_SUFFIX)]
    ext = dict(s.core.problem.extents)
    total = ext[mode] * ext[s.split_mode]
    if s.tail is not None:
        tail_ext = dict(s.tail.problem.extents)
        total += _covered(s.tail) if s.tail.split_mode is not None and s.tail.split_mode.startswith(mode) \
            else tail_ext[mode]
    return total


# (einsum, shapes, dtype, order, k mode that is split): the extents divide into no good slice count (dot
# products, whose tiles pad most, fold instead: test_planner_fold.py)
SPLIT_CASES = [
    ("ik,kj->ij", [(62, 1_700_011), (1_700_011, 55)], "f16", "C", "k"),
    ("ik,kj->ij", [(62, 1_700_011), (1_700_011, 55)], "f16", "F", "k"),
    ("ik,kj->ij", [(62, 1_700_011), (1_700_011, 55)], "f32", "C", "k"),
    ("ik,kj->ij", [(31, 999_983), (999_983, 17)], "f64", "F", "k"),
    ("ik,k->i", [(300, 200_003), (200_003,)], "f16", "C", "k"),
    ("ik,k->i", [(300, 200_003), (200_003,)], "f32", "F", "k"),
    ("abk,kc->abc", [(7, 9, 2 * 400_009), (2 * 400_009, 13)], "f16", "C", "k"),
    ("akl,lkc->ac", [(29, 3, 333_337), (333_337, 3, 11)], "f32", "C", "l"),
]


@pytest.mark.parametrize("eq,shapes,dtype,order,mode", SPLIT_CASES)
def test_long_k_splits_any_extent(eq, shapes, dtype, order, mode):
    """A long K over a small output is split into at least a wave of CTAs whatever its extent's factors; the
    slices and the tail cover the mode exactly once, and a cut stride-1 mode keeps whole aligned vectors."""
    p = _problem(eq, shapes, dtype, order)
    s = make_schedule(p)
    assert s.split_mode == mode + SPLIT_SUFFIX
    ext = dict(s.pad_ext or p.extents)  # (a padded schedule covers its zero-filled packs' extent: plan/align.py)
    assert _covered(s) == ext[mode]
    core_ext = dict(s.core.problem.extents)
    assert core_ext[s.split_mode] >= DEFAULT_TARGET.sm_count // 2  # (enough CTAs to stream K)
    unit = {m for t in (p.a, p.b) for m, st in zip(t.modes, t.strides, strict=True) if st == 1}
    if mode in unit:
        assert core_ext[mode] % SLICE_ALIGN == 0 and core_ext[mode] >= MIN_RUN
    if s.tail is not None:
        assert s.tail_from == core_ext[mode] * core_ext[s.split_mode]
        assert s.tail.problem.d.dtype == s.stage_d.dtype  # (one more slice of the accumulate-type workspace)


@pytest.mark.parametrize("ext", [{"a": 23, "b": 40, "c": 27, "x": 300, "y": 70},
                                 {"a": 19, "b": 24, "c": 33, "x": 150, "y": 91}])
@pytest.mark.parametrize("dtype", ["f16", "f32"])
def test_split_keeps_fused_k_runs(ext, dtype):
    """Three k modes that A holds as one contiguous run (row-major A[x, a, b, c]) over a small output: the split
    cuts the slowest of them (a prime extent, into single values) rather than one whose extent divides better,
    so each slice keeps the run of the other two (b x c values, not c's odd few); run end to end against numpy."""
    from gettpy.plan.split import MIN_RUN, slice_run

    eq = "xabc,abcy->xy"
    p = dense_problem(eq, ext, dtype, "C")
    s = make_schedule(p)
    assert s.split_mode == "a" + SPLIT_SUFFIX
    core_ext = dict(s.core.problem.extents)
    assert core_ext[s.split_mode] == ext["a"] and core_ext["a"] == 1
    k = set(s.core.part.k)
    assert slice_run(p.a, ext, k) == ext["a"] * ext["b"] * ext["c"]
    assert slice_run(p.a, ext, k, "a", 1) == ext["b"] * ext["c"] >= MIN_RUN
    assert slice_run(p.a, ext, k, "b", 1) == ext["c"] < MIN_RUN  # (what a cut of b would leave)
    assert slice_run(p.b, ext, k) is None  # (B's stride-1 mode is y)
    dt = np.float16 if dtype == "f16" else np.float32
    ops = laid_out(np.random.default_rng(3), [[ext[m] for m in "xabc"], [ext[m] for m in "abcy"]], dt, "C")
    assert_each_close(eq, gettpy.einsum(eq, *ops), ops, TOL[dt])


@pytest.mark.parametrize("ext", [{"a": 39, "b": 15, "c": 36, "e": 28, "x": 9, "y": 230},
                                 {"a": 21, "b": 13, "c": 44, "e": 20, "x": 7, "y": 11}])
def test_split_keeps_k_vectors(ext):
    """Column-major f16 A[a, b, c, e, x]: its four k modes are one run whose length takes 4- or 8-byte vectors, but
    a x b is odd. The split may not cut the run into slices of a x b values (read an element a copy): each core
    still reads A's k run in copies of 4 bytes or more; run end to end against numpy."""
    from gettpy.plan.schedule import _cores
    from gettpy.plan.tiles import kernel_spec

    eq = "abcex,yeacb->xy"
    s = make_schedule(dense_problem(eq, ext, "f16", "F"))
    assert s.split_mode is not None
    for core in _cores(s):
        spec = kernel_spec(core, False)
        assert all(op.vec * 2 >= 4 for op in (spec.a, spec.b) if op.kmajor), (spec.a, spec.b)
    ops = laid_out(np.random.default_rng(5), [[ext[m] for m in "abcex"], [ext[m] for m in "yeacb"]], np.float16,
                   "F")
    assert_each_close(eq, gettpy.einsum(eq, *ops), ops, TOL[np.float16])


def test_keeps_runs_scores_the_rows_of_a_remainder_cut():
    """A slice of q values of a mode inside a fused k run starts a row at every step of the next mode, the cut
    mode's extent apart: q = 64 values of a = 585 (odd) leave f16 rows at odd offsets, element copies, whatever q
    itself is (score 1); two values of the last k mode keep 4-byte copies (score 2). Column-major A[a, c, e, x]."""
    from gettpy.plan.plan import make_plan
    from gettpy.plan.split import keeps_runs

    ext = {"a": 585, "c": 67, "e": 16, "x": 8, "y": 9}
    keeps = keeps_runs(make_plan(dense_problem("acex,yace->yx", ext, "f16", "F")), ext)
    assert (keeps("a", 64), keeps("c", 2), keeps("e", 1), keeps("e", 2)) == (1, 1, 1, 2)


# (einsum, shapes): small enough to run on the CPU executor, long enough in K to split with a tail
RUN_CASES = [
    ("ik,kj->ij", [(5, 3001), (3001, 7)]),
    ("ki,kj->ij", [(4099, 3), (4099, 5)]),
    ("k,k->", [(20011,), (20011,)]),
    ("ik,k->i", [(9, 4099), (4099,)]),
    ("k,kj->j", [(5003,), (5003, 6)]),
    ("kab,bkc->ac", [(1037, 3, 5), (5, 1037, 4)]),
    ("zik,zkj->zij", [(2, 3, 2053), (2, 2053, 4)]),
]


@pytest.mark.parametrize("eq,shapes", RUN_CASES)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("layout", ["C", "F", "view"])
def test_split_with_tail_runs(eq, shapes, dtype, layout):
    """gettpy.einsum on the CPU executor equals numpy in float64 where the split leaves a tail, for C- and
    F-ordered inputs and strided views (every other element along the first axis)."""
    ops = laid_out(np.random.default_rng(7), shapes, dtype, layout)
    assert_each_close(eq, gettpy.einsum(eq, *ops), ops, TOL[dtype])


def test_split_with_tail_is_what_runs():
    """The run cases do take a split with a tail (the test above exercises the tail, not a plain GEMM)."""
    clear_plan_cache()
    p = _problem("ik,kj->ij", [(5, 3001), (3001, 7)], "f32")
    s = cached_schedule(p, "numpy")
    assert s.split_mode is not None and s.tail is not None and s.tail_from > 0


def test_split_with_c_beta_and_op():
    """Split-K with a tail applies beta * C and the output op once, after the slices are summed."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((6, 3001)).astype(np.float32)
    b = rng.standard_normal((3001, 5)).astype(np.float32)
    c = rng.standard_normal((6, 5)).astype(np.float32)
    con = gettpy.Contraction("ik,kj->ij", a, b, c=c, op_out="relu")
    got = con.execute(alpha=0.5, beta=2.0)
    ref = np.maximum(0.5 * a.astype(np.float64) @ b.astype(np.float64) + 2.0 * c, 0)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("extent,slices,unit,want", [
    (1_700_011, 264, True, (6432, 264)),     # a stride-1 mode: q a multiple of 8, the rest a tail
    (1_700_011, 264, False, (6432, 264)),
    (1000, 3, False, (328, 3)),              # q rounded down to whole vectors where it costs little
    (90, 3, False, (30, 3)),                 # a short q: not rounded
    (100, 2, True, None),                    # a stride-1 mode too short for two runs of MIN_RUN
    (130, 2, True, (64, 2)),
    (5, 1, False, None),
])
def test_cut(extent, slices, unit, want):
    assert cut(extent, slices, unit) == want
    if want is not None:
        q, s = want
        assert q * s <= extent < q * (s + 1) + q


def test_choose_cut_prefers_slowest_mode():
    ext = {"a": 64, "b": 10_007}
    assert choose_cut(("a", "b"), ext, {"a"}, 64 * 10_007, 100)[0] == "b"
    # the slowest mode is too short for half the slices: the faster one gives more
    ext = {"a": 40_009, "b": 3}
    assert choose_cut(("a", "b"), ext, set(), 3 * 40_009, 200)[0] == "a"


#: a 64 x 64 CTA, three to an SM
CTA64 = SplitTile(64, 64, 3)


def test_waves_and_resident_ctas():
    """The model's waves, by hand: an SM streams at its share of the copy bandwidth with STREAM_CTAS_PER_SM CTAs
    (or with one, where one fills its shared memory), and a partial last wave costs a whole one."""
    t = H100_SXM
    M = N = 64
    K = 1 << 20
    read_us = t.copy_us(K * (M + N) * 2)
    ws = lambda s: t.copy_us(2 * s * M * N * 4) + t.launch_us  # noqa: E731
    one = SplitTile(64, 64, 1)  # (its shared memory fills an SM)
    assert STREAM_CTAS_PER_SM == 2
    for s, want in ((132, read_us), (66, 2 * read_us), (133, read_us * 264 / 133)):
        assert math.isclose(split_model_us(M, N, K, 1, (2, 2), 4, one, s, t) - ws(s), want, rel_tol=1e-9)
    for s, want in ((264, read_us), (132, 2 * read_us), (265, read_us * 528 / 265)):
        assert math.isclose(split_model_us(M, N, K, 1, (2, 2), 4, CTA64, s, t) - ws(s), want, rel_tol=1e-9)
    assert SplitTile.of(SimpleNamespace(bm=128, bn=128, bk=64, stages=6), (2, 2), t).resident == 1
    assert SplitTile.of(SimpleNamespace(bm=64, bn=64, bk=32, stages=4), (2, 2), t).resident == 6
    assert SplitTile.of(SimpleNamespace(bm=64, bn=64, bk=32, stages=4), (2, 2), t, 100_000).resident == 2


@pytest.mark.parametrize("eq,M,N,K,order", [
    ("km,kn->mn", 83, 70, 300_007, "C"), ("km,kn->mn", 61, 90, 500_009, "C"), ("mk,nk->mn", 90, 61, 1_300_001, "F"),
    ("km,kn->mn", 101, 51, 965_511, "C"), ("ik,kj->ij", 64, 300, 100_003, "C"), ("ik,kj->ij", 37, 21, 2_000_003, "C"),
    ("ik,kj->ij", 5, 250, 700_001, "F")])
def test_slices_are_the_models_best_on_the_cores_tile(eq, M, N, K, order):
    """Long K over an output of a few tiles (f16, tensor-core split cores): the slice count the schedule runs is
    no worse, by the split model on the tile the core is lowered to (and the CTAs of it an SM holds), than half
    or twice as many. (Counted on the unsplit plan's narrower tile, the first three took half the slices the
    model wants on the core's 128-wide tile: 66 CTAs on 132 SMs.)"""
    from gettpy.plan.tiles import kernel_spec

    shapes = {"km,kn->mn": [(K, M), (K, N)], "mk,nk->mn": [(M, K), (N, K)], "ik,kj->ij": [(M, K), (K, N)]}[eq]
    s = make_schedule(_problem(eq, shapes, "f16", order))
    assert s.split_mode is not None
    assert _covered(s) == dict(s.pad_ext).get("k", K)  # (over zero-filled packs: the padded extent)
    spec = kernel_spec(s.core, False, sm_count=H100_SXM.sm_count)
    cta = SplitTile.of(spec.tile, (2, 2), H100_SXM, spec.smem_bytes)
    c, slices = s.core, s.core.batch
    cost = lambda x: split_model_us(c.M, c.N, K, 1, (2, 2), 4, cta, x, H100_SXM)  # noqa: E731
    assert cost(slices) <= min(cost(max(1, slices // 2)), cost(2 * slices)), (spec.tile, slices)


@pytest.mark.parametrize("M,N,K,want_split", [
    (62, 55, 1_700_011, True),   # long K, one tile: split to fill the machine
    (1, 1, 10_000_019, True),
    (4096, 4096, 4096, False),   # a full grid: no split
    (64, 64, 300, False),        # too short a K for slices of MIN_SLICE_K
])
def test_best_slices(M, N, K, want_split):
    s = best_slices(M, N, K, 1, (2, 2), 4, CTA64, H100_SXM)
    assert (s > 1) == want_split
    if want_split:  # the chosen count is no worse than unsplit or a few more / fewer slices
        t = lambda x: split_model_us(M, N, K, 1, (2, 2), 4, CTA64, x, H100_SXM)  # noqa: E731
        assert t(s) <= min(t(1), t(max(2, s // 2)), t(2 * s))


def test_slices_follow_the_target():
    """A target with fewer SMs needs fewer slices for the same shape (the model reads the target)."""
    small = Target("half", (9, 0), 66, H100_SXM.smem_per_sm, H100_SXM.smem_per_block, H100_SXM.copy_gbs,
                   H100_SXM.peaks, True, True, True, True)
    big = best_slices(62, 55, 1_700_011, 1, (2, 2), 4, CTA64, H100_SXM)
    few = best_slices(62, 55, 1_700_011, 1, (2, 2), 4, CTA64, small)
    assert few < big
    assert math.isclose(big / few, 2, rel_tol=0.1)
    p = _problem("ik,kj->ij", [(62, 1_700_011), (1_700_011, 55)], "f16")
    assert dict(make_schedule(p, target=small).core.problem.extents)["k" + SPLIT_SUFFIX] < \
        dict(make_schedule(p).core.problem.extents)["k" + SPLIT_SUFFIX]


@pytest.mark.parametrize("shapes", [[(17, 1_000_003), (1_000_003, 19)], [(9, 1_000_003), (1_000_003, 40)]])
def test_nested_tail_runs(shapes):
    """A tail long enough to split again (its own slices and tail) writes its slice of the parent's workspace
    through the axes of its own output modes: the result equals numpy in float64 (M != N, so an axis order
    mix-up cannot pass)."""
    clear_plan_cache()
    p = _problem("ik,kj->ij", shapes, "f32")
    s = cached_schedule(p, "numpy")
    assert not s.fold and s.tail is not None and s.tail.split_mode is not None  # (the nested case)
    rng = np.random.default_rng(1)
    a = rng.standard_normal(shapes[0]).astype(np.float32)
    b = rng.standard_normal(shapes[1]).astype(np.float32)
    got = gettpy.einsum("ik,kj->ij", a, b)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    scale = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    assert np.all(np.abs(got - ref) <= 2e-5 * scale)
