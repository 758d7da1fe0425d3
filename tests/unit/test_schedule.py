"""Schedules: packing gathered inputs, split-K and staged outputs, checked end to end on the CPU
executor (which runs the same stages as the GPU) against np.einsum in float64."""
from __future__ import annotations

import importlib
import math
from dataclasses import replace

import numpy as np
import pytest
from harness import (
    TCCG48,
    allow_split_k,
    assert_close,
    einsum_of,
    fresh_caches,
    full_extents,
    nonzero,
    packed_problem,
    reduced_extents,
    short_name,
)

import gettpy
from gettpy.plan import schedule as sched
from gettpy.plan import split
from gettpy.plan.problem import ContractionProblem, TensorInfo
from gettpy.plan.schedule import make_schedule
from gettpy.plan.tiles import DMMA_TILE, kernel_spec

#: the GPU's schedules (their stagings) run on the CPU executor here: see conftest.py
pytestmark = pytest.mark.usefixtures("gpu_schedules_on_the_cpu")


einsum_mod = importlib.import_module("gettpy.einsum")  # the module (gettpy.einsum is the function)


def _f_problem(contraction: str, ext: dict[str, int], dtype="f16") -> ContractionProblem:
    return packed_problem(contraction, ext, dtype, "F")


@pytest.mark.parametrize("num,kinds", [
    (1, {"stage"}), (3, {"stage"}), (5, set()), (6, set()), (13, {"split", "stage"}),
    (14, {"pack", "split", "stage"}),
    (28, {"pack"}), (30, {"pack"}), (12, set()), (20, {"pack"}),  # #20: runs of 72 of compute-bound inputs
    (32, {"pack"}), (33, set()),  # #32: a small input read through permuted slots is packed; #33's is not
])
def test_full_size_tccg_schedules(num, kinds):
    """At TCCG's sizes (F order, f16) the heuristic stages exactly where the layouts call for it."""
    row = TCCG48[num - 1]
    s = make_schedule(_f_problem(row[2], full_extents(row[2], row[3])))
    got = set()
    if s.pack_a is not None or s.pack_b is not None:
        got.add("pack")
    if s.split_mode is not None:
        got.add("split")
    if s.stage_d is not None:
        got.add("stage")
    assert got == kinds
    core = s.core
    # a packed input is read with vectors by the core
    if s.pack_a is not None or s.pack_b is not None:
        assert max(core.layout_a.vector_width(d) for d in "mk") > 1
        assert max(core.layout_b.vector_width(d) for d in "kn") > 1


def test_interleaved_output_staged():
    """#3 (D runs along a, its big input along d): the core writes a workspace laid out in the input's
    order (d, b, a, then c), reads and writes along d with no interleave, and a copy moves it into D;
    not where the input is under STAGE_D_RATIO times D (#6: 151 MB against 113), nor with a C to add.
    End to end on the CPU executor against numpy."""
    row = TCCG48[3 - 1]
    s = make_schedule(_f_problem(row[2], full_extents(row[2], row[3])))
    assert s.stage_d.modes == ("d", "b", "a", "c") and s.split_mode is None
    assert s.stage_d.strides == (1, 72, 72 * 72, 72 ** 3) and s.stage_d.dtype == "f16"
    assert (s.core.part.split_m, s.core.part.split_n) == (0, 0)
    assert s.core.layout_d.dim("n").strides[0] == 1 and s.core.layout_b.dim("n").strides[0] == 1
    row6 = TCCG48[6 - 1]
    assert make_schedule(_f_problem(row6[2], full_extents(row6[2], row6[3]))).stage_d is None
    ext = {"a": 24, "b": 8, "c": 4, "d": 16, "e": 16}
    small = _f_problem("abcd-dbea-ec", ext, "f16")
    assert make_schedule(small).stage_d is not None
    assert make_schedule(replace(small, c=small.d)).stage_d is None
    # (f32: D's pieces are 8 x 4 bytes, whole sectors, and the input only 4 times D: not staged)
    assert make_schedule(_f_problem("abcd-dbea-ec", ext, "f32")).stage_d is None
    fresh_caches()
    rng = np.random.default_rng(3)
    a = np.asfortranarray(nonzero(rng, tuple(ext[m] for m in "dbea")).astype(np.float16))
    b = np.asfortranarray(nonzero(rng, tuple(ext[m] for m in "ec")).astype(np.float16))
    out = np.full(tuple(ext[m] for m in "abcd"), np.nan, dtype=np.float16, order="F")
    gettpy.einsum("dbea,ec->abcd", a, b, out=out)
    assert_close(out, np.einsum("dbea,ec->abcd", a.astype(np.float64), b.astype(np.float64)), np.float16)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("row", TCCG48, ids=[f"{r[0]}-{r[2]}" for r in TCCG48])
def test_tccg_through_forced_stagings(force_staging, row, order):
    num, _, contraction, extents = row[:4]
    ext = reduced_extents(num, contraction, extents)
    c, a, b = contraction.split("-")
    rng = np.random.default_rng(num)
    arrs = [nonzero(rng, tuple(ext[m] for m in t)) for t in (a, b)]
    if order == "F":
        arrs = [np.asfortranarray(x) for x in arrs]
    out = np.full(tuple(ext[m] for m in c), np.nan, order=order)
    gettpy.einsum(einsum_of(contraction), *arrs, out=out)
    assert_close(out, np.einsum(einsum_of(contraction), *arrs))


def test_split_k_without_forcing():
    """A small output with a long K splits by itself; the partial sums add up to the full result."""
    fresh_caches()
    rng = np.random.default_rng(7)
    a = nonzero(rng, (8, 64, 96))
    b = nonzero(rng, (96, 64, 8))
    ta = TensorInfo("A", ("i", "k", "l"), (64 * 96, 96, 1), "f32")
    tb = TensorInfo("B", ("l", "k", "j"), (64 * 8, 8, 1), "f32")
    td = TensorInfo("D", ("i", "j"), (8, 1), "f32")
    s = make_schedule(ContractionProblem(ta, tb, None, td, (("i", 8), ("j", 8), ("k", 64), ("l", 96))))
    assert s.split_mode is not None and s.core.batch > 1
    got = gettpy.einsum("ikl,lkj->ij", a.astype(np.float32), b.astype(np.float32))
    assert_close(got, np.einsum("ikl,lkj->ij", a, b), np.float32)


@pytest.mark.parametrize("num,mode", [(13, "c"), (14, "c")])
def test_split_k_slices_keep_runs_and_fill_wide_tiles(num, mode):
    """#13's stride-1 k mode d (312) is not cut into runs of 24; the slices of c (by the divisor rule or the
    split model, whichever the model prices lower) give the 128 x 128 tile one and a half to three waves on 132
    SMs, and the split core runs on it."""
    from gettpy.plan.tiles import kernel_spec

    row = TCCG48[num - 1]
    s = make_schedule(_f_problem(row[2], full_extents(row[2], row[3])))
    assert s.split_mode == mode + split.SPLIT_SUFFIX
    slices = s.core.batch
    assert 1.5 * 132 <= (s.core.M // 128 + 1) * (s.core.N // 128 + 1) * slices <= 3 * 132
    tile = kernel_spec(s.core, False).tile
    assert (tile.bm, tile.bn) == (128, 128)


def test_split_k_on_the_f32_short_side_tile():
    """#19 in f32 (M = 72, K = 5184): 41 tiles of 72 x 128 under a wave, so K is split (6 slices of d: two
    waves, 864 k each; 3 and 4 slices leave under 1.5 waves, 8 a third wave) and the split core keeps the
    72 x 128 tile; #13 in f32 (M, N = 296, 312) splits onto 64 x 64 tiles (64 threads of 8 x 8, 6 CTAs per
    SM: 320 x 320 padded, not 384 x 320), 74 slices, with stream-K over its 792 slots (1850 tiles: 2.3
    waves); #14, 52 slices, 1300 tiles: under two waves, no stream-K. (A target without the f64 tensor cores:
    on sm_90 the f32 split cores run on DMMA_SPLIT_TILE, tests/test_dmma.py.)"""
    from gettpy.plan.tiles import kernel_spec

    row = TCCG48[19 - 1]
    s = make_schedule(_f_problem(row[2], full_extents(row[2], row[3]), "f32"), f64_cores=False)
    assert s.split_mode == "d" + split.SPLIT_SUFFIX and (s.core.batch, s.core.M, s.core.K) == (6, 72, 864)
    tile = kernel_spec(s.core, False).tile
    assert (tile.bm, tile.bn, tile.bk, tile.tm, tile.tn) == (72, 128, 16, 9, 4)
    row = TCCG48[13 - 1]
    s = make_schedule(_f_problem(row[2], full_extents(row[2], row[3]), "f32"), f64_cores=False)
    assert s.split_mode == "c" + split.SPLIT_SUFFIX and s.core.batch == 74
    tile = kernel_spec(s.core, False).tile
    assert (tile.bm, tile.bn, tile.tm, tile.tn, tile.min_blocks, tile.mma, tile.sk_ctas) == \
        (64, 64, 8, 8, 6, False, 792)
    row = TCCG48[14 - 1]
    s = make_schedule(_f_problem(row[2], full_extents(row[2], row[3]), "f32"), f64_cores=False)
    assert s.split_mode == "c" + split.SPLIT_SUFFIX and s.core.batch == 52
    tile = kernel_spec(s.core, False).tile
    assert (tile.bm, tile.bn, tile.min_blocks, tile.sk_ctas) == (64, 64, 6, 0)


def test_simt_slices_time_model():
    """The f32 split model on its own: slices whose grid is under 1.5 waves are out, and of two splits
    within 5% of the best time the one with fewer slices wins."""
    from gettpy.kernels.spec import TileConfig

    row = TCCG48[13 - 1]
    plan = make_schedule(_f_problem(row[2], full_extents(row[2], row[3]), "f32")).problem
    plan = sched.make_plan(plan)
    ext = dict(plan.problem.extents)
    t = TileConfig(128, 64, 16, 3, tm=8, tn=4)
    per = 3 * 5  # (296 / 128 -> 3 tile rows, 312 / 64 -> 5 tile columns)
    mode, slices, tile = split.simt_slices(plan, [(t, 1.0)], 132, ext)
    got = (mode, slices)
    cands = list(split.split_candidates(plan, ext))
    assert got in cands and per * got[1] >= 1.5 * 132
    # 1110 tiles on 132 slots (min_blocks 1): 8.4 waves, at least SPLIT_SK_MIN_WAVES, 93% full on average
    # (under SK_WAVE_FILL) and 78 k-tiles each -> stream-K on the 132 slots
    assert (tile.bm, tile.bn, tile.sk_ctas) == (128, 64, 132)

    def model(s):  # (the docstring's model, written out)
        return (math.ceil(per * s / 132) * (plan.K // s) * 128 * 64 / split.SIMT_FMA_PER_US
                + s * plan.M * plan.N * 8 / split.SPLIT_BYTES_PER_US)

    ok = [s for _, s in cands if per * s >= 1.5 * 132]
    best = min(model(s) for s in ok)
    assert got[1] == min(s for s in ok if model(s) <= 1.05 * best)
    assert model(got[1]) < model(37)  # (74 slices: 9 waves of 1248 k beat 5 waves of 2496)


def test_simt_split_tile_choice_and_stream_k_gate():
    """The model over both split tiles, written out for #13 (M 296, N 312): 64 x 64 (25 tiles per slice,
    cost 1.1, 792 slots) against 128 x 64 (15 tiles, 396 slots); a grid under 1.5 waves of its slots is
    out; stream-K only from SPLIT_SK_MIN_WAVES waves."""
    row = TCCG48[13 - 1]
    plan = sched.make_plan(_f_problem(row[2], full_extents(row[2], row[3]), "f32"))
    ext = dict(plan.problem.extents)
    tiles = split.simt_split_tiles(plan, 132, f64_cores=False)
    assert [(t.bm, t.bn, t.min_blocks, c) for t, c in tiles] == [(128, 64, 3, 1.0), (64, 64, 6, 1.10)]
    per = {128: 15, 64: 25}

    def model(t, cost, s):
        return (cost * math.ceil(per[t.bm] * s / 132) * (plan.K // s) * t.bm * t.bn / split.SIMT_FMA_PER_US
                + s * plan.M * plan.N * 8 / split.SPLIT_BYTES_PER_US)

    ok = [(t, c, s) for t, c in tiles for _, s in split.split_candidates(plan, ext)
          if per[t.bm] * s >= 1.5 * 132 * t.min_blocks]
    assert all(s != 37 or t.bm == 128 for t, c, s in ok) and (64, 37) not in [(t.bm, s) for t, c, s in ok]
    best = min(model(*o) for o in ok)
    want = min((o for o in ok if model(*o) <= 1.05 * best), key=lambda o: (o[2], model(*o)))
    mode, slices, tile = split.simt_slices(plan, tiles, 132, ext)
    assert (tile.bm, tile.bn, slices) == (want[0].bm, want[0].bn, want[2]) == (64, 64, 74)
    assert tile.sk_ctas == 792  # (1850 tiles >= 2 x 792)
    # a forced split under two waves of slots keeps whole tiles
    _, _, t37 = split.simt_slices(plan, [tiles[1]], 132, ext, [("c", 37)])
    assert t37.sk_ctas == 0


@pytest.mark.parametrize("num,dtype,packs", [
    (20, "f16", (True, True)),  # both inputs have runs of 72: dense k-major copies
    (29, "f16", (True, True)),
    (12, "f16", (False, False)),  # a plain GEMM's runs are thousands long
    (28, "f16", (True, True)),  # both (with TMA tiles; on mma.sync tiles the pair measured slower)
    # f32: compute-bound f64 tensor-core cores read both inputs k-major; an input not k-contiguous is packed k first
    (20, "f32", (True, True)),
    (21, "f32", (True, False)),
    (12, "f32", (True, False)),
    (28, "f32", (False, True)),
])
def test_short_run_packs(num, dtype, packs):
    row = TCCG48[num - 1]
    s = make_schedule(_f_problem(row[2], full_extents(row[2], row[3]), dtype))
    assert (s.pack_a is not None, s.pack_b is not None) == packs
    if all(packs) and dtype == "f16":  # both packed inputs are read k-major with 16-byte vectors
        assert [lay.vector_width("k") * lay.itemsize for lay in (s.core.layout_a, s.core.layout_b)] == [16, 16]
    if dtype == "f32":  # compute-bound f32 on sm_90: every input (packed or not) read k-major in 16-byte vectors
        spec = kernel_spec(s.core, False)
        assert spec.tf32 == 2 and spec.compute == "f64" and spec.tile == DMMA_TILE
        assert (spec.a.kmajor, spec.b.kmajor, spec.a.vec, spec.b.vec) == (True, True, 4, 4)
        for pk in (s.pack_a, s.pack_b):
            if pk is not None:  # (packed k modes first)
                assert pk.modes[0] in s.core.part.k


def test_forced_split_and_its_errors():
    """make_schedule(split=...) (a forced split): the given k mode and slices, or a ValueError naming them."""
    row = TCCG48[12]  # #13: ab-acd-dbc
    p = _f_problem(row[2], full_extents(row[2], row[3]))
    s = make_schedule(p, split=("c", 8))
    assert s.split_mode == "c" + split.SPLIT_SUFFIX and s.core.batch == 8 and s.core.K == 92352 // 8
    for bad in (("c", 7), ("a", 2), ("c", 1)):
        with pytest.raises(ValueError, match=repr(bad[0])):
            make_schedule(p, split=bad)


def test_workspace_size_reports_the_temporaries():
    fresh_caches()
    row = TCCG48[13]  # ab-cad-dcb: packs A and splits K
    s = make_schedule(_f_problem(row[2], full_extents(row[2], row[3])))
    assert s.workspace_bytes > 0


def test_split_k_with_beta_c_and_output_op(monkeypatch):
    """Split-K applies beta * op_c(C) and op_d after summing the slices (C with its own strides)."""
    allow_split_k(monkeypatch)
    fresh_caches()
    rng = np.random.default_rng(11)
    a, b = nonzero(rng, (6, 3, 4)).transpose(1, 2, 0), nonzero(rng, (6, 5))  # k never stride 1
    c = nonzero(rng, (5, 4, 3)).transpose(2, 1, 0)
    d = np.full((3, 4, 5), np.nan)
    desc = gettpy.TensorDescriptor
    p = gettpy.plan(desc.of(a), "xyk", desc.of(b), "kz", desc.of(c, "abs"), "xyz", desc.of(d, "tanh"), "xyz")
    assert p.plan.split_mode is not None
    gettpy.contract(p, 0.5, a, b, 2.0, c, d)
    assert_close(d, np.tanh(0.5 * np.einsum("xyk,kz->xyz", a, b) + 2.0 * np.abs(c)))
    fresh_caches()


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_ops_on_reread_inputs_are_applied_in_the_pack(dtype):
    """A compute-bound shape with ops on A and B: the schedule packs both with the op applied once (the
    core reads them without an op); the result is the fused one's, against numpy float64."""
    from gettpy import ops

    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, (1500, 1300)).astype(dtype)
    b = rng.uniform(-1, 1, (1300, 1400)).astype(dtype)
    op = ops.leaky_relu(0.1)
    got = gettpy.einsum("ik,kj->ij", a, b, ops=[op, op], dtype=np.float32)
    fa, fb = (np.where(x > 0, x, np.float32(0.1) * x).astype(dtype).astype(np.float64) for x in (a, b))
    assert_close(got, fa @ fb, np.float32 if dtype == np.float32 else np.float16)
    s = make_schedule(ContractionProblem(TensorInfo("A", ("i", "k"), (1300, 1), short_name(dtype), op=op),
                                         TensorInfo("B", ("k", "j"), (1400, 1), short_name(dtype), op=op), None,
                                         TensorInfo("D", ("i", "j"), (1400, 1), "f32"),
                                         (("i", 1500), ("j", 1400), ("k", 1300))))
    assert s.pack_a is not None and s.pack_b is not None
    assert s.pack_a.op.is_identity and s.pack_b.op.is_identity
    assert s.core.kernel_a.op.is_identity and s.core.kernel_b.op.is_identity


def test_ops_of_reread_inputs_are_packed_in_memory_bound_shapes_too():
    """ccsd_t (#31: memory-bound, small inputs re-read by many CTAs) with leaky_relu on A and B: both inputs
    are packed with the op applied (A is packed anyway, B for the op: on the H100 transforming in the kernel
    instead measured slower), so the core reads both without an op."""
    from gettpy import ops
    from tccg.runner import case_problem
    from tccg.suite import parse_cases

    case = parse_cases("31")[0]
    plain = make_schedule(case_problem(case, "f16", "f16"))
    s = make_schedule(case_problem(case, "f16", "f16", op=ops.leaky_relu(0.1)))
    assert (plain.pack_a is None) != (plain.pack_b is None)  # (one input packed without the op)
    assert s.pack_a is not None and s.pack_b is not None
    assert s.pack_a.op.is_identity and s.pack_b.op.is_identity
    assert s.core.kernel_a.op.is_identity and s.core.kernel_b.op.is_identity


@pytest.mark.parametrize("num", [1, 2])
def test_narrow_small_input_with_an_op(num):
    """TCCG #1 / #2 shapes (M = 24, the small input re-read by every CTA column) with leaky_relu on A, B and D:
    #2's small input is A's resident panel, which applies the op itself, so nothing is packed; #1's is
    k-major (no panel), so it is packed with the op, and D, interleaved with the big input, is still staged
    through a workspace (the pack is not the big input). End to end on the CPU executor against numpy
    float64 of op(op(A) op(B))."""
    from gettpy import ops
    from gettpy.backends import cpu, staged
    from tccg.runner import case_problem
    from tccg.suite import SUITE, Case

    row = SUITE[num - 1]
    ext = {"a": 48, "b": 48, "c": 24, "d": 176} if num == 1 else {"a": 48, "b": 24, "c": 48, "d": 176}
    lr = ops.leaky_relu(0.1)
    for case in (row, Case(num, row.group, row.contraction, ext)):
        s = make_schedule(case_problem(case, "f16", "f16", op=lr))
        assert s.pack_b is not None and s.pack_b.op.is_identity if num == 1 else not s.staged
        assert (s.stage_d is not None) == (num == 1) and s.split_mode is None
        spec = kernel_spec(s.core, False)
        assert spec.op_b and spec.op_d and bool(spec.op_a) == (num == 2)  # (#1's A: packed with the op)
        assert spec.tile.resident_a == (num == 2) and spec.tile.frag_op_b
    rng = np.random.default_rng(num)
    a, b = (np.asfortranarray(rng.uniform(-1, 1, sh).astype(np.float16)) for sh in case.shapes()[:2])
    d = np.full(case.shapes()[2], np.nan, np.float16, order="F")
    staged.run(s, np, cpu.execute, a, b, None, d)
    f = lambda x: np.where(x > 0, x, 0.1 * x)  # noqa: E731
    fa, fb = (f(x.astype(np.float64)).astype(np.float16).astype(np.float64) for x in (a, b))
    assert_close(d, f(np.einsum(case.einsum_subscripts(), fa, fb)), np.float16)


@pytest.mark.parametrize("num", [20, 21, 26, 29])
def test_packed_inputs_are_plain_matrices_in_the_core(num):
    """Packs are laid out in the core's own mode orders: each GEMM dimension of a packed input is one
    stride term (the planner had reversed #20's packed m modes, a two-term map TMA cannot load)."""
    row = TCCG48[num - 1]
    s = make_schedule(_f_problem(row[2], full_extents(row[2], row[3]), "f16"))
    assert s.pack_a is not None and s.pack_b is not None
    for lay, mn in ((s.core.layout_a, "m"), (s.core.layout_b, "n")):
        for dim in (mn, "k"):
            assert len(lay.dim(dim).strides) == 1, (num, lay.name, dim, lay.dim(dim))


def test_partition_traded():
    """Partition.traded: A and B trade roles (m and n, their cuts, the transpose flag); twice gives it back."""
    from gettpy.plan.partition import Partition

    p = Partition(("a", "c"), ("b",), ("d",), (), False, 8, 0)
    q = p.traded()
    assert (q.m, q.n, q.k, q.b, q.swapped, q.split_m, q.split_n) == (("b",), ("a", "c"), ("d",), (), True, 0, 8)
    assert q.traded() == p
