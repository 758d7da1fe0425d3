"""Interleaved tiles (planner side): when the output and an input have their stride-1 modes in the same
GEMM dimension, the partition cuts the output's mode and both get vector access; the plan computes the
same numbers (CPU executor against numpy float64); the kernel's shared-memory slot permutation is a
bijection that puts every vector in consecutive slots."""
from __future__ import annotations

from dataclasses import replace as dataclass_replace

import numpy as np
import pytest
from harness import packed_problem

import gettpy
from gettpy.plan import ContractionProblem, make_plan
from gettpy.plan.partition import interleave
from gettpy.plan.problem import TensorInfo
from gettpy.plan.tiles import kernel_spec


def _problem(con: str, ext: dict[str, int], dtype="f16", order="F") -> ContractionProblem:
    return packed_problem(con, ext, dtype, order)


SIX = {"a": 48, "b": 32, "c": 24, "d": 32, "e": 48, "f": 32}  # TCCG #6 abcde-efbad-cf


def test_tccg6_is_interleaved():
    plan = make_plan(_problem("abcde-efbad-cf", SIX))
    part = plan.part
    assert part.swapped and part.n[:2] == ("a", "e") and part.split_n == 16
    spec = kernel_spec(plan, False)
    # the kernel's B (the problem's A, e fastest) is read in 8-vectors along e, 16 coordinates apart;
    # D is written in 8-vectors along a
    assert (spec.b.vec, spec.b.kmajor, spec.b.vs) == (8, False, 16)
    assert (spec.d.vec, spec.d.ncontig) == (8, True)
    # the layouts: D's n map leads with a (16 of 48), then e, then a's upper part (3)
    dn = plan.layout_d.dim("n")
    assert dn.moduli[:1] == (16,) and dn.strides[0] == 1


@pytest.mark.parametrize("ext_x,want", [(48, 16), (40, 8), (8, 8), (12, 0), (4, 4)])
def test_cut_length(ext_x, want):
    d = TensorInfo("D", ("x", "y"), (1, ext_x), "f16")
    a = TensorInfo("A", ("y", "x", "k"), (1, 16, 16 * ext_x), "f16")
    order, cut = interleave(("y", "x"), a, "x", d.itemsize, {"x": ext_x, "y": 16, "k": 3})
    assert cut == want
    assert order == (("x", "y") if want else ("y", "x"))


def test_no_interleave_without_conflict():
    d = TensorInfo("D", ("x", "y"), (1, 32), "f16")
    a = TensorInfo("A", ("x", "y", "k"), (1, 32, 512), "f16")
    assert interleave(("x", "y"), a, "x", d.itemsize, {"x": 32, "y": 16, "k": 3}) == (("x", "y"), 0)


@pytest.mark.parametrize("con,ext,order", [
    ("abcde-efbad-cf", {"a": 48, "b": 3, "c": 5, "d": 2, "e": 16, "f": 7}, "F"),
    ("abc-bda-dc", {"a": 40, "b": 24, "c": 3, "d": 5}, "F"),
    ("xmy-mk-ykx", {"x": 32, "m": 7, "y": 24, "k": 5}, "F"),
    ("cba-adb-cd", {"a": 48, "b": 16, "c": 3, "d": 4}, "C"),
])
def test_interleaved_einsum_matches_numpy(con, ext, order):
    c, a, b = con.split("-")
    rng = np.random.default_rng(1)
    x = np.asarray(rng.standard_normal([ext[m] for m in a]), order=order)
    y = np.asarray(rng.standard_normal([ext[m] for m in b]), order=order)
    plan = make_plan(_problem(con, ext, "f32", order))
    assert plan.part.split_m or plan.part.split_n
    got = gettpy.einsum(f"{a},{b}->{c}", x, y)
    np.testing.assert_allclose(got, np.einsum(f"{a},{b}->{c}", x, y), rtol=1e-12, atol=1e-12)


def _slot(l: int, v: int, vs: int) -> int:
    """spec.OperandSpec's documented slot of tile coordinate l."""
    return (l // vs) % v + v * (l % vs + vs * (l // (vs * v)))


def _coord(p: int, v: int, vs: int) -> int:
    """gett.cuh SlotPerm::coord, transcribed."""
    j, r = p % v, p // v
    return r % vs + vs * (j + v * (r // vs))


@pytest.mark.parametrize("tmn,v,vs", [(128, 8, 16), (128, 8, 8), (64, 4, 16), (128, 4, 32), (32, 8, 1), (128, 8, 1)])
def test_slot_permutation(tmn, v, vs):
    slots = [_slot(c, v, vs) for c in range(tmn)]
    assert sorted(slots) == list(range(tmn))
    assert all(_coord(_slot(c, v, vs), v, vs) == c for c in range(tmn))
    for r in range(tmn // v):  # SlotPerm::vector_coord: the vector filling slots [v r, v r + v)
        first = r % vs + vs * v * (r // vs)
        assert [_coord(v * r + j, v, vs) for j in range(v)] == [first + j * vs for j in range(v)]


def test_write_bound_shapes_put_the_output_run_on_the_kernels_m():
    """TCCG #33 (K = 24, 6144 x 6144): D's stride-1 mode lands in the kernel's M (measured faster)."""
    ext = {"a": 24, "b": 16, "c": 16, "d": 24, "e": 16, "f": 16, "g": 24}
    plan = make_plan(_problem("abcdef-degc-gfab", ext))
    assert "a" in plan.part.m and plan.part.swapped
    # a compute-sized K keeps the rule of the docstring: D's stride-1 set is the kernel's N
    big = dict(ext, g=240)
    plan = make_plan(_problem("abcdef-degc-gfab", big))
    assert "a" in plan.part.n


def test_long_narrow_gemm_puts_its_kmajor_wide_input_on_the_kernels_m():
    """TCCG #2 (abc-dca-bd: M = 92352 along a, c; N = 24; K = 312 along d, the wide input's stride-1 mode):
    the wide input is the kernel's A (plan/partition.py narrow_kmajor_wide), in f16, bf16 and f16 -> f32 alike;
    the other flag (D's stride-1 set on the kernel's N, the docstring's rule) with an op on either input, in
    f32, under the wide side's NARROW_WIDE rows, or with K under NARROW_KMAJOR_K; over the 48 TCCG cases only #2
    takes it. A plan at the rule's edge contracts correctly on the CPU executor (against numpy float64)."""
    from gettpy import ops
    from gettpy.plan.partition import NARROW_WIDE, narrow_kmajor_wide, partition
    from tccg.runner import case_problem
    from tccg.suite import SUITE

    two = {"a": 312, "b": 24, "c": 296, "d": 312}
    for dt in ("f16", "bf16"):
        part = partition(_problem("abc-dca-bd", two, dt))
        assert part.m == ("a", "c") and part.n == ("b",) and not part.swapped
    p = _problem("abc-dca-bd", two)
    assert partition(ContractionProblem(p.a, p.b, p.c, dataclass_replace(p.d, dtype="f32"), p.extents)).m == ("a", "c")
    assert partition(_problem("abc-dca-bd", two, "f32")).swapped  # (f32: the simt path, the usual flag)
    q = ContractionProblem(dataclass_replace(p.a, op=ops.leaky_relu(0.1)), p.b, p.c, p.d, p.extents)
    assert partition(q).swapped  # (an op on an input: warp-specialised tiles apply none)
    assert partition(_problem("abc-dca-bd", dict(two, c=16))).swapped  # (M = 4992 rows only)
    assert partition(_problem("abc-dca-bd", dict(two, d=128))).swapped  # (K = 128)
    hits = []
    for case in SUITE:
        for dt in ("f16", "f32"):
            pr = case_problem(case, dt, dt)
            ext = dict(pr.extents)
            a, b, d = set(pr.a.modes), set(pr.b.modes), set(pr.d.modes)
            sets = (tuple((a & d) - b), tuple((b & d) - a), tuple((a | b) - d), tuple(a & b & d))
            if narrow_kmajor_wide(pr, *sets, ext):
                hits.append((case.num, dt))
    assert hits == [(2, "f16")]
    # the edge: exactly NARROW_WIDE rows (a x c), K = 256; through the CPU executor
    ext = {"a": 132, "b": 24, "c": NARROW_WIDE // 132, "d": 256}
    assert make_plan(_problem("abc-dca-bd", ext)).part.m == ("a", "c")
    rng = np.random.default_rng(2)
    ha = rng.uniform(-1, 1, (ext["d"], ext["c"], ext["a"])).astype(np.float16)
    hb = rng.uniform(-1, 1, (ext["b"], ext["d"])).astype(np.float16)
    a_, b_ = np.asfortranarray(ha), np.asfortranarray(hb)
    out = np.empty((ext["a"], ext["b"], ext["c"]), np.float16, order="F")
    gettpy.einsum("dca,bd->abc", a_, b_, out=out)
    ref = np.einsum("dca,bd->abc", ha.astype(np.float64), hb.astype(np.float64))
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=2e-2, atol=2e-2)


def test_short_output_run_continues_in_the_other_set():
    """TCCG #32 (abcdef-degb-gfac): D's run along a (24 elements, in n) continues with b (stride 24, in m),
    so b leads the m order and a tile writes whole 24 x b blocks of D."""
    from gettpy.plan.partition import output_leads

    ext = {"a": 24, "b": 16, "c": 16, "d": 24, "e": 16, "f": 16, "g": 24}
    plan = make_plan(_problem("abcdef-degb-gfac", ext))
    d = plan.problem.d
    x_m, x_n = output_leads(("d", "e", "b"), ("a", "c", "f"), d, ext)
    assert (x_m, x_n) == ("b", "a")
    kernel_sets = (plan.part.m, plan.part.n)
    assert any(s[0] == "b" for s in kernel_sets) and any(s[0] == "a" for s in kernel_sets)
    # a long run (a = 96 elements, 192 bytes >= SHORT_RUN_BYTES) does not continue
    assert output_leads(("d", "e", "b"), ("a", "c", "f"), d, dict(ext, a=96)) == (None, "a")


def test_a_cut_that_does_not_divide_its_mode_is_refused():
    """A forced partition (the tuner's database, tccg probes) whose interleave cut does not divide the mode
    would drop coordinates (TCCG #2: a = 312 cut by 16 planned 19 * 16 * 296 = 89984 of 92352 columns):
    make_plan raises, naming the mode; a dividing cut plans every column."""
    from gettpy.plan.partition import Partition

    p = _problem("abc-dca-bd", {"a": 312, "b": 24, "c": 296, "d": 312})
    with pytest.raises(ValueError, match=r"split_n=16 .* 312 of mode 'a'"):
        make_plan(p, Partition(("b",), ("a", "c"), ("d",), (), True, 0, 16))
    plan = make_plan(p, Partition(("b",), ("a", "c"), ("d",), (), True, 0, 8))
    assert plan.N == 92352 and plan.layout_d.dim("n").extent == 92352
