"""The autotuner on the CPU executor: design space, pruning, verification, the database round trip
and einsum picking up the tuned plan (in process, and through GETTPY_TUNE=1 from the database)."""
from __future__ import annotations

import dataclasses
import importlib

import numpy as np
import pytest
from harness import assert_close, nonzero, packed_problem

import gettpy
from gettpy.kernels.spec import TileConfig
from gettpy.plan import cache as plan_cache
from gettpy.plan.plan import make_plan
from gettpy.plan.target import H100_SXM
from gettpy.plan.tiles import kernel_spec
from gettpy.plan.tuner import Candidate, design_space, predicted_ms, tune, valid
from gettpy.plan.tuning_db import TuningDB, problem_key

einsum_module = importlib.import_module("gettpy.einsum")
#: a device without sm_90's instructions (no wgmma, TMA, clusters or f64 tensor-core f32 path), with fewer SMs
SM80 = dataclasses.replace(H100_SXM, name="an sm_80 device", cc=(8, 0), sm_count=108, wgmma=False, tma=False,
                           clusters=False, dmma=False)


def _problem(dtype="f16"):
    # TCCG #20 at full size: abcd-aebf-dfce (F order)
    return packed_problem("abcd-aebf-dfce", dict(zip("abcdef", (72,) * 6, strict=True)), dtype)


def test_design_space_heuristic_first_distinct_and_valid():
    p = _problem()
    cands = design_space(p, 40, seed=1)
    assert cands[0].tile is None and len(set(cands)) == len(cands) >= 20
    for c in cands[1:]:
        assert valid(p, c) and c.tile.mma
        plan = make_plan(p, c.part, c.tile)
        assert (plan.M, plan.N, plan.K) in {(5184, 5184, 5184)}
    assert all(c.tile.tm > 0 for c in design_space(_problem("f32"), 10)[1:])


def test_invalid_candidates_are_rejected_before_compiling():
    p = _problem()
    base = design_space(p, 1)[0].part
    gathered = Candidate(base.__class__(base.m, base.n, tuple(reversed(base.k)), base.b, base.swapped),
                         TileConfig(128, 128, 64, 3, wm=64, wn=64))
    plan = make_plan(p, gathered.part, gathered.tile)
    if max(plan.layout_a.vector_width(d) for d in "mk") == 1 or max(plan.layout_b.vector_width(d) for d in "kn") == 1:
        assert not valid(p, gathered)  # 64 scalar loads per thread: would not compile


def test_model_prefers_vector_loads_and_full_waves():
    p = _problem()
    t = TileConfig(128, 128, 32, 4, wm=64, wn=32)
    good = make_plan(p)
    k = good.part
    bad = make_plan(p, k.__class__(k.m, k.n, tuple(reversed(k.k)), k.b, k.swapped))
    assert predicted_ms(good, t) <= predicted_ms(bad, t)


def test_candidate_dict_round_trip():
    c = design_space(_problem(), 5, seed=3)[2]
    assert Candidate.from_dict(c.to_dict()) == c
    c = dataclasses.replace(c, tile=dataclasses.replace(c.tile, l2_prefetch=256))
    assert Candidate.from_dict(c.to_dict()) == c and c.to_dict()["tile"]["l2_prefetch"] == 256
    # a record written while TileConfig had a split_k field (always 1) still reads; any other value is refused
    old = c.to_dict()
    old["tile"]["split_k"] = 1
    assert Candidate.from_dict(old) == c
    old["tile"]["split_k"] = 2
    with pytest.raises(ValueError, match="split_k"):
        Candidate.from_dict(old)


def test_tune_measures_verifies_and_ranks():
    p = _problem()
    calls = []

    def run(c):
        calls.append(c)
        if len(calls) == 2:
            return 0.0, False  # a candidate whose result is wrong is never chosen
        return 1.0 + 0.1 * len(calls), True

    trials = tune(p, run, samples=20, top=5)
    assert len(trials) == 5 + 2 and calls[0].tile is None  # the heuristic is always measured
    # (then its own tile with the other L2 prefetch sizes on its copies, in the heuristic's partition)
    heuristic = kernel_spec(make_plan(p, calls[0].part, None), False).tile
    assert not heuristic.tma and heuristic.l2_prefetch == 0
    assert [(c.part, c.tile) for c in calls[1:3]] == [
        (calls[0].part, dataclasses.replace(heuristic, l2_prefetch=n)) for n in (128, 256)]
    assert all(c.tile is None or c.tile.l2_prefetch == 0 for c in calls[3:])
    assert trials[0].ok and trials[0].measured_ms == min(t.measured_ms for t in trials if t.ok)
    assert not trials[-1].ok and trials[-1].candidate == calls[1]


def test_option_variants_of_a_narrow_contraction():
    """TCCG #5 (abcd-ebad-ce: M = 24, A read m-contiguous, one tile row; the heuristic's tile copies with 128 B
    of L2 prefetch and keeps A's panel): the tile with 0 and 256 B, and without the panel, all in the
    heuristic's partition; #2's row-stream tile with a stage fewer, K in 2 parts and the warp-specialised wgmma
    tile; none for #12's TMA tile."""
    from gettpy.plan.tuner import option_variants

    p5 = packed_problem("abcd-ebad-ce", {"a": 72, "b": 72, "c": 24, "d": 72, "e": 72})
    c5 = design_space(p5, 1)[0]
    tile = kernel_spec(make_plan(p5, c5.part, None), False).tile
    assert tile.l2_prefetch == 128 and tile.resident_a
    got = option_variants(p5, (1.0, c5))
    assert [t for t, _ in got] == [1.0] * 3 and all(v.part == c5.part for _, v in got)
    assert [v.tile for _, v in got] == [dataclasses.replace(tile, l2_prefetch=0),
                                        dataclasses.replace(tile, l2_prefetch=256),
                                        dataclasses.replace(tile, resident_a=False)]
    p = packed_problem("abc-dca-bd", {"a": 312, "b": 24, "c": 296, "d": 312})
    c = design_space(p, 1)[0]
    rows = kernel_spec(make_plan(p, c.part, None), False).tile
    assert rows.rows == 4 and rows.stages == 4
    # (#2's row-stream tile: one stage fewer, K in two parts, and the warp-specialised wgmma tile before it)
    from gettpy.plan.tiles import NARROW_WS_TILE

    assert [v.tile for _, v in option_variants(p, (1.0, c))] == [dataclasses.replace(rows, stages=3),
                                                                 dataclasses.replace(rows, rows=2), NARROW_WS_TILE]
    # (with an op on the big input, the kernel's B: the heuristic applies it to B's fragments; the tuner tries
    #  the stage transform too)
    from gettpy import ops

    q = dataclasses.replace(p, a=dataclasses.replace(p.a, op=ops.leaky_relu(0.1)))
    cq = design_space(q, 1)[0]
    tq = kernel_spec(make_plan(q, cq.part, None), False)
    assert tq.op_b and tq.tile.frag_op_b
    assert option_variants(q, (1.0, cq))[-1][1].tile == dataclasses.replace(tq.tile, frag_op_b=False)
    p12 = packed_problem("ab-ac-cb", {"a": 5136, "b": 5120, "c": 5136})
    assert kernel_spec(make_plan(p12, design_space(p12, 1)[0].part, None), False).tile.tma
    assert option_variants(p12, (1.0, design_space(p12, 1)[0])) == []


def test_gettpy_tune_on_the_cpu_executor(isolated, monkeypatch):
    rng = np.random.default_rng(4)
    a, b = nonzero(rng, (12, 10, 14)), nonzero(rng, (14, 9, 10))
    trials = gettpy.tune("ikl,ljk->ij", a, b, samples=12, top=4, reps=2)
    assert trials[0].ok and all(t.ok for t in trials)
    best = trials[0].candidate
    # einsum now runs the tuned plan, and is still right
    assert_close(gettpy.einsum("ikl,ljk->ij", a, b), np.einsum("ikl,ljk->ij", a, b))
    canonical = next(iter(plan_cache._TUNED))
    assert plan_cache.cached_schedule(canonical).core.part == best.part
    assert TuningDB("cpu", "0").lookup(problem_key(canonical))["config"] == best.to_dict()
    # a new process: nothing in memory, GETTPY_TUNE=1 reads the database
    plan_cache._TUNED.clear()
    plan_cache.clear_plan_cache()
    einsum_module.clear_program_cache()
    monkeypatch.setenv("GETTPY_TUNE", "1")
    assert plan_cache.cached_schedule(canonical).core.part == best.part
    assert plan_cache.cached_schedule(canonical).core.tile == best.tile
    assert_close(gettpy.einsum("ikl,ljk->ij", a, b), np.einsum("ikl,ljk->ij", a, b))


def test_contraction_autotune(isolated):
    rng = np.random.default_rng(8)
    a, b = nonzero(rng, (6, 7, 9)), nonzero(rng, (9, 5, 7))
    con = gettpy.Contraction("xyk,kzy->xz", a, b)
    trials = con.autotune(samples=10, top=3, reps=1)
    assert trials[0].ok
    assert_close(con.execute(alpha=2.0), 2 * np.einsum("xyk,kzy->xz", a, b))
    assert con.plan().plan.core.part == trials[0].candidate.part


def test_candidate_dict_round_trip_keeps_the_interleave_cut():
    from gettpy.plan.partition import Partition
    from gettpy.plan.tuner import Candidate

    part = Partition(("c",), ("a", "e", "b"), ("f",), (), True, 0, 16)
    c = Candidate(part, TileConfig(32, 128, 32, 4, wm=32, wn=32))
    back = Candidate.from_dict(c.to_dict())
    assert back == c and back.part.split_n == 16


def test_design_space_has_sm90_tiles_only_for_sm90():
    """On an sm_90 device the f16 space holds wgmma, TMA and persistent tiles; elsewhere none of them; every
    candidate passes the kernel spec's own validation (a TMA tile only where both inputs have tensor maps)."""
    from gettpy.plan import ContractionProblem, TensorInfo
    from gettpy.plan.plan import make_plan
    from gettpy.plan.tiles import kernel_spec
    from gettpy.plan.tuner import design_space

    def ti(name, modes):
        return TensorInfo(name, modes, (1024, 1), "f16")

    p = ContractionProblem(ti("A", ("i", "k")), ti("B", ("k", "j")), None, ti("D", ("i", "j")),
                           (("i", 1024), ("j", 1024), ("k", 1024)))  # (a plain GEMM: TMA tiles apply)
    on = design_space(p, 60, seed=3, target=H100_SXM)
    off = design_space(p, 60, seed=3, target=SM80)
    assert any(c.tile is not None and c.tile.wgmma for c in on) and any(c.tile is not None and c.tile.tma for c in on)
    assert not any(c.tile is not None and (c.tile.wgmma or c.tile.persistent) for c in off)
    for c in on[1:]:
        kernel_spec(make_plan(p, c.part, c.tile), False)  # (raises on an invalid candidate)
    for c in off[1:]:
        kernel_spec(make_plan(p, c.part, c.tile), False, sm_count=SM80.sm_count, wgmma=False)


def test_the_heuristic_candidate_stands_for_the_heuristic_schedule():
    """The heuristic candidate (the base partition, no tile) runs and records as make_schedule's own plan:
    with packs, forcing the unpacked problem's partition on the packed core would change its mode orders
    (on the H100 the 'tuned' #25-#48 then ran 1/0.83 slower than the heuristic they were meant to keep)."""
    from gettpy.plan.partition import partition
    from gettpy.plan.schedule import make_schedule
    from gettpy.plan.tuner import schedule_of

    p = _problem()
    heur = make_schedule(p)
    assert heur.staged
    assert schedule_of(p, Candidate(partition(p), None)) == heur
    forced = make_schedule(p, part=partition(p))
    other = design_space(p, 10, seed=2)[1]
    assert schedule_of(p, other) == make_schedule(p, part=other.part, tile=other.tile)
    assert forced.core.part.m == tuple(reversed(heur.core.part.m))  # (#20: m order (d, c) against (c, d))


def test_tuned_cpu_plans_are_found_on_a_gpu_machine(isolated, monkeypatch):
    """GETTPY_TUNE=1 with numpy operands reads the CPU executor's database even where a GPU is present
    (it once read the GPU's, and the CPU-tuned plan was lost on a GPU machine)."""
    import cupy

    from gettpy.plan import tuning_db

    rng = np.random.default_rng(5)
    a, b = nonzero(rng, (12, 10, 14)), nonzero(rng, (14, 9, 10))
    trials = gettpy.tune("ikl,ljk->ij", a, b, samples=12, top=4, reps=2)
    best = trials[0].candidate
    canonical = next(iter(plan_cache._TUNED))
    plan_cache._TUNED.clear()
    plan_cache.clear_plan_cache()
    einsum_module.clear_program_cache()
    real = tuning_db.device_identity
    monkeypatch.setattr(cupy.cuda.runtime, "getDeviceCount", lambda: 1)  # (a GPU, as far as the cache sees)
    monkeypatch.setattr(tuning_db, "device_identity", lambda backend: ("Fake GPU", "90") if backend == "cupy"
                        else real(backend))
    monkeypatch.setenv("GETTPY_TUNE", "1")
    assert plan_cache.cached_schedule(canonical, "numpy").core.tile == best.tile
    assert plan_cache.cached_schedule(canonical, "cupy").core.tile is None  # (nothing tuned for the GPU)
    assert_close(gettpy.einsum("ikl,ljk->ij", a, b), np.einsum("ikl,ljk->ij", a, b))


def test_the_tuner_plans_for_the_device_it_tunes_on():
    """The tuner's schedules are the plan cache's for the same device: the heuristic candidate on a device without
    sm_90's instructions is make_schedule's plan for it (f32 on simt tiles, not the f64 tensor cores), forced
    candidates are planned and validated for it, and a tuning record is checked against it before use."""
    from gettpy.plan.partition import partition
    from gettpy.plan.schedule import make_schedule
    from gettpy.plan.tuner import candidate_from_record, schedule_of

    p = packed_problem("ab-ac-cb", {"a": 1024, "b": 1024, "c": 1024}, "f32")
    heur = Candidate(partition(p), None)
    on_h100, on_sm80 = schedule_of(p, heur, H100_SXM), schedule_of(p, heur, SM80)
    assert on_h100 == make_schedule(p) and on_sm80 == make_schedule(p, f64_cores=False, target=SM80)
    assert kernel_spec(on_h100.core, False).tf32 == 2
    assert kernel_spec(on_sm80.core, False, sm_count=SM80.sm_count, wgmma=False).tf32 != 2
    forced = design_space(p, 8, seed=1, target=SM80)[1]
    assert schedule_of(p, forced, SM80) == make_schedule(p, part=forced.part, tile=forced.tile, f64_cores=False,
                                                         target=SM80)
    wg = Candidate(partition(packed_problem("ab-ac-cb", {"a": 1024, "b": 1024, "c": 1024}, "f16")),
                   TileConfig(128, 128, 64, 3, wm=64, wn=128, wgmma=True))
    p16 = packed_problem("ab-ac-cb", {"a": 1024, "b": 1024, "c": 1024}, "f16")
    assert candidate_from_record(p16, wg.to_dict(), H100_SXM)[0] == wg
    got, why = candidate_from_record(p16, wg.to_dict(), SM80)
    assert got is None and "not valid" in why
