"""The traffic model and the restaging pass (gettpy/plan/traffic.py): sector counts against an enumeration of
every address a tile touches, the calibration points of the write law, the pass's choices on shapes in no
benchmark (odd extents whose output and input run along different modes), and the restaged schedules end to end
on the CPU executor against numpy in float64."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from harness import RESTAGED, assert_close, dense_problem, nonzero, reference
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gettpy.layouts.descriptor import DimMap
from gettpy.plan.schedule import make_schedule, planned_schedule, readable_schedule
from gettpy.plan.target import DEFAULT_TARGET
from gettpy.plan.traffic import SECTOR_BYTES, candidates, dense_order, fetch_ratio, schedule_us, write_ratio


def _sectors(dm: DimMap, itemsize: int, count: int) -> int:
    """Distinct 32-byte sectors holding the first `count` coordinates of `dm` (every address enumerated)."""
    seen = set()
    for g in range(count):
        off = sum(((g // d) % m) * s for d, m, s in zip(dm.divisors, dm.moduli, dm.strides, strict=True))
        seen.add(off * itemsize // SECTOR_BYTES)
    return len(seen)


@settings(max_examples=200, deadline=None)
@given(itemsize=st.sampled_from([2, 4, 8]), run_sectors=st.integers(1, 6), part=st.integers(1, 16),
       outer=st.integers(2, 5), gap=st.integers(0, 3), span_runs=st.integers(1, 3))
def test_fetch_ratio_counts_the_sectors_of_aligned_runs(itemsize, run_sectors, part, outer, gap, span_runs):
    """A stride-1 run of r elements (each run starting on a sector) read over a span of whole runs: the
    bytes of the sectors fetched over the bytes used, as an enumeration of the addresses counts them."""
    per = SECTOR_BYTES // itemsize
    run = max(2, (run_sectors - 1) * per + min(part, per))  # (the last sector partly used)
    pitch = math.ceil(run / per) * per + gap * per  # (the next run starts on a sector)
    dm = DimMap(run * outer, (1, run), (run, outer), (1, pitch))
    span = min(run, run * span_runs)
    used = span * itemsize
    assert fetch_ratio(dm, itemsize, span) == pytest.approx(_sectors(dm, itemsize, span) * SECTOR_BYTES / used)


@settings(max_examples=100, deadline=None)
@given(itemsize=st.sampled_from([2, 4, 8]), stride=st.integers(2, 40), span=st.integers(2, 64))
def test_fetch_ratio_of_strided_elements(itemsize, stride, span):
    """Elements `stride` apart: a sector each where the stride spans a sector, else shared by neighbours."""
    dm = DimMap(span, (1,), (span,), (stride,))
    fetched = _sectors(dm, itemsize, span) * SECTOR_BYTES
    # (the enumeration counts whole sectors; the model's per-element share is exact for strides dividing a
    #  sector or spanning one, and an upper bound otherwise)
    assert fetch_ratio(dm, itemsize, span) * span * itemsize >= fetched - SECTOR_BYTES
    if stride * itemsize >= SECTOR_BYTES:
        assert fetch_ratio(dm, itemsize, span) == SECTOR_BYTES / itemsize


def test_write_ratio_calibration_points():
    """Whole sectors cost their bytes; an isolated 2-byte element about 64 times (measured on the H100: outputs
    of 80-136 MB stored an f16 element per run took 1.45-3.0 ms); shorter runs never cost less than longer."""
    whole = DimMap(4096, (1, 64), (64, 64), (1, 1000))
    assert write_ratio(whole, 2, 256) == 1.0
    lone = DimMap(4096, (1,), (4096,), (51,))
    assert write_ratio(lone, 2, 256) == pytest.approx(64.0)
    ratios = [write_ratio(DimMap(4096, (1, r), (r, 4096 // r), (1, 5000)), 2, 256) for r in (1, 2, 4, 8, 16, 32)]
    assert ratios == sorted(ratios, reverse=True) and ratios[-1] == 1.0


def test_dense_order():
    p = dense_problem("abc,cd->abd", {"a": 3, "b": 5, "c": 7, "d": 2}, "f16", "C")
    ext = dict(p.extents)
    assert dense_order(p.a, ext) == ("c", "b", "a")
    assert dense_order(p.d, ext) == ("d", "b", "a")
    gapped = type(p.a)("A", ("a", "b", "c"), (100, 10, 1), "f16")
    assert dense_order(gapped, ext) is None




def test_restage_takes_the_cheaper_staging():
    """Each shape gets a staging (D staged or an input packed) that the model predicts at most MIN_GAIN of the
    schedule as planned; both kinds occur."""
    from gettpy.plan.traffic import MIN_GAIN

    kinds = set()
    for eq, ext, dt, order in RESTAGED:
        p = dense_problem(eq, ext, dt, order)
        s0, s1 = planned_schedule(p), make_schedule(p)
        assert s1 != s0, eq
        t = DEFAULT_TARGET
        assert schedule_us(s1, t, t.sm_count) <= MIN_GAIN * schedule_us(s0, t, t.sm_count)
        kinds.add("d" if s1.stage_d is not None else "pack")
    assert kinds == {"d", "pack"}


@pytest.mark.parametrize("ext,order", [({"b": 389, "c": 443, "e": 409, "t": 6, "v": 7}, "F"),
                                       ({"b": 433, "c": 401, "e": 409, "t": 4, "v": 9}, "F"),
                                       ({"b": 433, "c": 475, "e": 409, "t": 6, "v": 7}, "C")])
def test_restage_packs_compute_bound_shapes_whose_reads_bound_them(ext, order):
    """A compute-bound contraction (by its intensity) whose input the plan reads in single elements: the model
    prices the reads above the flops, and a pack of that input predicts at most MIN_GAIN of it, so it is taken."""
    from gettpy.plan.tiles import compute_bound
    from gettpy.plan.traffic import MIN_GAIN

    p = dense_problem("cbvt,cte->bve", ext, "f16", order)
    s0, s1 = planned_schedule(p), make_schedule(p)
    assert compute_bound(s0.core.M, s0.core.N, s0.core.K)
    t = DEFAULT_TARGET
    assert s1 != s0 and (s1.pack_a is not None or s1.pack_b is not None) and s1.stage_d is None
    assert schedule_us(s1, t, t.sm_count) <= MIN_GAIN * schedule_us(s0, t, t.sm_count)


def test_restage_leaves_coalesced_and_compute_bound_shapes():
    """A GEMM whose tensors all run along the tile, a compute-bound one read in 16-byte vectors, one with C:
    planned as before."""
    for eq, ext, dt in (("ik,kj->ij", {"i": 1000, "j": 999, "k": 37}, "f16"),
                        ("ik,kj->ij", {"i": 3001, "j": 2999, "k": 3003}, "f16"),
                        ("abcd,ea->ebcd", {"a": 72, "b": 72, "c": 72, "d": 72, "e": 72}, "f32")):
        p = dense_problem(eq, ext, dt, "F")
        assert make_schedule(p) == planned_schedule(p)


def test_candidates_keep_every_mode():
    """Every candidate is the same contraction: the staged tensor has the same modes and extents, densely."""
    eq, ext, dt, order = RESTAGED[1]
    p = dense_problem(eq, ext, dt, order)
    cands = candidates(p, dict(p.extents))
    assert {k for k, _, _ in cands} == {"d", "a", "b"}
    for kind, alt, staged in cands:
        orig = getattr(p, kind)
        assert sorted(staged.modes) == sorted(orig.modes) and staged.dtype == orig.dtype
        assert dense_order(staged, ext) == staged.modes
        assert getattr(alt, kind) is staged


def _operands(eq: str, ext: dict[str, int], dt: str, order: str, seed: int):
    """(inputs, numpy dtype, output shape) of einsum `eq`: nonzero random values of `dt` in memory order `order`."""
    rng = np.random.default_rng(seed)
    dtype = np.float16 if dt == "f16" else np.float32
    lhs, out = eq.split("->")
    xs = [nonzero(rng, [ext[m] for m in t]).astype(dtype) for t in lhs.split(",")]
    xs = [np.asfortranarray(x) if order == "F" else x for x in xs]
    return xs, dtype, [ext[m] for m in out]


@pytest.mark.parametrize("eq,ext,dt,order", RESTAGED)
def test_restaged_einsum_on_the_cpu(eq, ext, dt, order, gpu_schedules_on_the_cpu):
    """The restaged schedules run end to end (packs, the core, the staged output's copy) on the CPU executor."""
    import gettpy

    xs, dtype, shape = _operands(eq, ext, dt, order, 7)
    d = np.empty(shape, dtype=dtype, order=order)
    got = gettpy.einsum(eq, *xs, out=d)
    assert got is d
    assert_close(got, reference(eq, *xs), dtype)


def test_restaged_einsum_with_ops_on_the_cpu(gpu_schedules_on_the_cpu):
    """Ops on both inputs and the result survive the restaging: the packs keep the inputs' ops for the core, the
    staged workspace receives op_out's values and the copy moves them into D."""
    import gettpy
    from gettpy.ops import as_op

    g = as_op("leaky_relu")
    for eq, ext, dt, order in RESTAGED[:2] + RESTAGED[3:4]:
        xs, dtype, shape = _operands(eq, ext, dt, order, 5)
        d = np.empty(shape, dtype=dtype, order=order)
        gettpy.einsum(eq, *xs, out=d, ops=["leaky_relu", "leaky_relu"], op_out="leaky_relu")
        ref = g(np.einsum(eq, *[g(x.astype(np.float64)) for x in xs]))
        assert_close(d, ref, dtype)


#: the default target with free launches, so that the pass restages shapes small enough for the CPU executor
#: (about one in five of `_fuzz_case`'s, against none at the real launch cost)
FREE_LAUNCH = replace(DEFAULT_TARGET, launch_us=0.0)


def _fuzz_case(data):
    """(einsum, extents, dtype, order) of a random restaging candidate: A holds three free modes and the summed
    ones, B one free mode and the summed ones, every tensor's modes in a random order, odd extents."""
    summed = data.draw(st.sampled_from(["e", "ef"]), label="summed")
    perm = lambda s, label: "".join(data.draw(st.permutations(s), label=label))  # noqa: E731
    eq = f"{perm('abc' + summed, 'A')},{perm('d' + summed, 'B')}->{perm('abcd', 'D')}"
    ext = {m: data.draw(st.integers(2, 14), label=m) * 2 + 1 for m in "abcd" + summed}
    return eq, ext, data.draw(st.sampled_from(["f16", "f32"])), data.draw(st.sampled_from("CF"))


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_restage_fuzz_on_the_cpu(data):
    """Whatever the pass chooses for a random candidate (`_fuzz_case`, planned for FREE_LAUNCH), the CPU executor
    running the GPU's schedule matches numpy in float64."""
    import gettpy
    from gettpy.einsum import clear_program_cache
    from gettpy.plan import cache

    eq, ext, dt, order = _fuzz_case(data)
    xs, dtype, _ = _operands(eq, ext, dt, order, data.draw(st.integers(0, 2**16)))
    saved = cache.executor_stages, cache.executor_target
    cache.executor_stages, cache.executor_target = (lambda backend: True), (lambda backend: FREE_LAUNCH)
    cache.clear_plan_cache()
    clear_program_cache()
    try:
        got = gettpy.einsum(eq, *xs)
    finally:
        cache.executor_stages, cache.executor_target = saved
        cache.clear_plan_cache()
        clear_program_cache()
    assert_close(got, reference(eq, *xs), dtype)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_restage_fuzz_candidates_are_whole(data):
    """For random candidates the restaged schedule is one of the pass's own: the staged tensor (workspace or
    pack) is dense in its mode order with the tensor's modes, the core reads what the schedule hands it, and the
    predicted time never exceeds the schedule as planned."""
    eq, ext, dt, order = _fuzz_case(data)
    p = dense_problem(eq, ext, dt, order)
    t = FREE_LAUNCH
    # (the schedule restaged; the direct kernel, the pass after it, is plan/direct.py's and test_direct.py's)
    s0, s1 = readable_schedule(p, t.sm_count, target=t)[0], make_schedule(p, target=t, direct=False)
    if s1 == s0:
        return
    assert schedule_us(s1, t, t.sm_count) < schedule_us(s0, t, t.sm_count)
    for staged, orig in ((s1.stage_d, p.d), (s1.pack_a, p.a), (s1.pack_b, p.b)):
        if staged is not None:
            assert sorted(staged.modes) == sorted(orig.modes) and dense_order(staged, ext) == staged.modes
    core = s1.core.problem
    assert sorted(core.a.modes + core.b.modes + core.d.modes) == sorted(p.a.modes + p.b.modes + p.d.modes)


def test_flops_term_uses_the_instructions_the_kernel_runs():
    """The flops bound is priced at the peak of the kernel's instructions: the f16 tensor cores, their TF32 modes
    (a half and a sixth of that), the f64 tensor cores, or the FMA units of the accumulate type."""
    from types import SimpleNamespace

    from gettpy.plan.traffic import _peak

    t = DEFAULT_TARGET
    spec = lambda mma, tf32=0, compute="f32": SimpleNamespace(tile=SimpleNamespace(mma=mma), tf32=tf32,  # noqa: E731
                                                              compute=compute)
    assert _peak(spec(True), t) == t.peak("mma")
    assert _peak(spec(True, 1), t) == pytest.approx(t.peak("mma") / 2)
    assert _peak(spec(True, 3), t) == pytest.approx(t.peak("mma") / 6)
    assert _peak(spec(True, 2, "f64"), t) == t.peak("dmma")
    assert _peak(spec(False, 0, "f64"), t) == t.peak("simt64")
    assert _peak(spec(False), t) == t.peak("simt32")


def test_restaged_einsum_with_a_semiring_on_the_cpu(gpu_schedules_on_the_cpu):
    """A semiring's sums survive the restaging (the workspace receives the core's max-plus values, the packs copy
    the inputs' bits): against an enumeration of every product."""
    from harness import brute

    import gettpy
    from gettpy.ops import as_semiring

    sr = as_semiring("max_plus")
    for eq, ext, dt, order in RESTAGED[3:5]:
        p = replace(dense_problem(eq, ext, dt, order), semiring=sr)
        assert make_schedule(p) != planned_schedule(p)
        xs, dtype, _ = _operands(eq, ext, dt, order, 9)
        got = gettpy.einsum(eq, *xs, semiring="max_plus")
        assert_close(got, brute(eq, sr, *xs), dtype)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_every_candidate_runs_right_on_the_cpu(data):
    """Every staged alternative the pass could choose (`staged_schedule` of each `candidates` entry, whatever the
    model predicts), with ops on the inputs and the result and an alpha, run on the CPU executor: the same values
    as numpy in float64. Checks the candidates themselves, independently of which one the model prefers."""
    from gettpy.backends import execute
    from gettpy.ops import as_op
    from gettpy.plan.traffic import staged_schedule

    eq, ext, dt, order = _fuzz_case(data)
    ops = [data.draw(st.sampled_from([None, "relu", "neg", "tanh"]), label=f"op{i}") for i in range(3)]
    alpha = data.draw(st.sampled_from([1.0, -0.5, 2.0]), label="alpha")
    p = dense_problem(eq, ext, dt, order)
    p = replace(p, a=replace(p.a, op=as_op(ops[0])), b=replace(p.b, op=as_op(ops[1])), d=replace(p.d, op=as_op(ops[2])))
    xs, dtype, shape = _operands(eq, ext, dt, order, data.draw(st.integers(0, 2**16), label="seed"))
    g = [as_op(o) for o in ops]
    ins = [g[i](x.astype(np.float64)) for i, x in enumerate(xs)]
    ref = g[2](alpha * np.einsum(eq, *ins))
    # (the output's ops have slopes of at most 1: its error is at most the sum's, relative to the terms summed)
    scale = abs(alpha) * float(np.max(np.einsum(eq, *[np.abs(x) for x in ins])))
    ran = 0
    for kind, alt, staged in candidates(p, dict(p.extents)):
        s = staged_schedule(p, kind, alt, staged, lambda q: planned_schedule(q, target=FREE_LAUNCH))
        if s is None:
            continue
        d = np.empty(shape, dtype=dtype, order=order)
        execute("numpy", s, xs[0], xs[1], None, d, alpha, 0.0)
        assert_close(d, ref, dtype, scale=scale)
        ran += 1
    # (where every alternative's core takes zero-filled packs -- odd extents, launches free -- the pass composes
    #  with none of them: nothing to check)
    assume(ran >= 1)


@pytest.mark.parametrize("M,N,K,order", [(17, 3, 3000017, "C"), (94, 114, 3406031, "F"), (61, 17, 1234567, "F")])
def test_padded_flops_count_whole_tiles(M, N, K, order):
    """The flops a core's tiles compute, every tile whole (rows and columns past M and N included), at the share of
    the units it runs on: counted here tile by tile from the spec's own tile and batch."""
    from gettpy.plan.tiles import kernel_spec
    from gettpy.plan.traffic import PADDED_SHARE, _peak, padded_flops_us

    s = make_schedule(dense_problem("mk,nk->mn", dict(m=M, n=N, k=K), "f32", order))
    spec = kernel_spec(s.core, False, sm_count=DEFAULT_TARGET.sm_count, wgmma=DEFAULT_TARGET.wgmma)
    t = spec.tile
    rows = sum(t.bm for m0 in range(0, spec.M, t.bm))
    cols = sum(t.bn for n0 in range(0, spec.N, t.bn))
    share = PADDED_SHARE["tensor"] if t.mma else PADDED_SHARE["cuda"]
    want = 2.0 * rows * cols * spec.K * spec.batch / (_peak(spec, DEFAULT_TARGET) * share * 1e6)
    assert padded_flops_us(spec, DEFAULT_TARGET) == pytest.approx(want, rel=1e-12)
    assert rows >= spec.M and cols >= spec.N and (rows - spec.M) < t.bm and (cols - spec.N) < t.bn
