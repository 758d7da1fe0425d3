"""Zero-filled k-major packs for memory-bound GEMMs whose k-contiguous rows are not whole 16-byte vectors
(plan/align.py): which schedule the loaders' model picks for odd and aligned K in both memory orders, on shapes
in no benchmark, and the padded split schedules run end to end on the CPU executor against numpy in float64."""
from __future__ import annotations

import numpy as np
import pytest
from harness import dense_problem

from gettpy import ops as gops
from gettpy.backends import cpu, staged
from gettpy.dtypes import short_name
from gettpy.plan.problem import ContractionProblem, TensorInfo
from gettpy.plan.schedule import make_schedule
from gettpy.plan.target import DEFAULT_TARGET

#: the GETT schedules of long-K shapes, which the long-K kernel would otherwise take
pytestmark = pytest.mark.usefixtures("gett_tiles_only")


def _run(eq: str, a, b, op_b=None):
    """The GPU's schedule of einsum `eq` on these numpy arrays (their own strides), run through
    `backends.staged.run` around the CPU executor's core (the CPU executor's own schedules stage nothing);
    returns (D in float32, the schedule)."""
    lhs, out = eq.split("->")
    ins = lhs.split(",")
    ext = dict(zip(ins[0] + ins[1], (*a.shape, *b.shape), strict=True))
    d = np.full([ext[m] for m in out], 7, dtype=np.float32)  # (poisoned: every element written)

    def info(name, modes, x, op=None):
        return TensorInfo(name, tuple(modes), tuple(st // x.itemsize for st in x.strides), short_name(x.dtype),
                          op=op or gops.identity)

    p = ContractionProblem(info("A", ins[0], a), info("B", ins[1], b, op_b), None, info("D", out, d),
                           tuple(sorted(ext.items())))
    s = make_schedule(p)
    staged.run(s, np, cpu.execute, a, b, None, d, 1.0, 0.0)
    return d, s


def _problem(eq: str, ext: dict[str, int], dtype: str, order: str) -> ContractionProblem:
    return dense_problem(eq, ext, dtype, order)


# (einsum, extents, dtype, order, padded k extent or None)
PLAN_CASES = [
    ("mk,nk->mn", dict(m=88, n=37, k=1_200_007), "f16", "C", None),       # odd k rows: realigned in place
    ("mk,nk->mn", dict(m=88, n=37, k=1_200_007), "f16", "F", None),       # m runs of 88: 16-byte vectors
    ("mk,nk->mn", dict(m=88, n=37, k=1_200_000), "f16", "C", None),       # whole vectors: in place
    ("km,kn->mn", dict(m=77, n=45, k=700_001), "f16", "F", None),          # the same, the other operand order
    ("km,kn->mn", dict(m=90, n=110, k=100_003), "f32", "F", 100_004),      # 4-byte copies of a wider output: pad
    ("km,kn->mn", dict(m=77, n=45, k=700_001), "f16", "C", None),          # k strided: a padded pack transposes
    ("km,kn->mn", dict(m=77, n=45, k=700_002), "f16", "F", None),          # 4-byte k vectors: not worth a copy
    ("mk,nk->mn", dict(m=88, n=37, k=1_200_007), "f32", "C", None),        # 4-byte elements: cp.async, no pad
    ("mk,nk->mn", dict(m=90, n=110, k=2_000_003), "f32", "C", 2_000_004),  # ... but m/n-first packs cost more
]


@pytest.mark.parametrize("eq,ext,dtype,order,padded", PLAN_CASES)
def test_align_decision(eq, ext, dtype, order, padded):
    s = make_schedule(_problem(eq, ext, dtype, order))
    assert s.split_mode is not None  # (a long K over a small output: split-K either way)
    pad = dict(s.pad_ext)
    if padded is None:
        assert not pad
        return
    assert pad["k"] == padded and all(pad[m] == e for m, e in ext.items() if m != "k")
    assert s.pack_a is not None and s.pack_b is not None
    # the split core reads both packs k-major in 16-byte vectors, every slice and the tail starting aligned
    vec = 16 // s.problem.a.itemsize
    assert s.core.layout_a.vector_width("k") == vec and s.core.layout_b.vector_width("k") == vec
    assert dict(s.core.problem.extents)["k"] % vec == 0 and s.tail_from % vec == 0
    # the temporaries count both padded packs
    itemsize = s.problem.a.itemsize
    assert s.workspace_bytes >= itemsize * padded * (ext["m"] + ext["n"])


def test_compute_bound_is_not_this_rule():
    """A compute-bound GEMM with an odd K keeps the unsplit padded packs of its own rule (test_planner_pad)."""
    s = make_schedule(_problem("ik,kj->ij", dict(i=1031, j=1029, k=843), "f16", "C"))
    assert dict(s.pad_ext)["k"] == 848 and s.split_mode is None


def test_load_model():
    t = DEFAULT_TARGET
    assert t.load_gbs(16) == t.copy_gbs and t.load_gbs(32) == t.copy_gbs
    assert t.load_gbs(2) == pytest.approx(t.copy_gbs * t.sync_load_frac)
    assert t.load_gbs(2) < t.load_gbs(4) < t.load_gbs(8) < t.load_gbs(16)


# (einsum, (m, n), K, order, dtype, whether the model pads): the padded split schedule and its in-place peers (2-byte
# odd k rows are read realigned in place)
RUN_CASES = [
    ("mk,nk->mn", (40, 24), 200_003, "C", "f16", False),
    ("mk,nk->mn", (40, 24), 200_003, "F", "f16", False),
    ("km,kn->mn", (40, 24), 200_003, "F", "f16", False),
    ("km,kn->mn", (40, 24), 200_003, "C", "f16", False),
    ("mk,nk->mn", (90, 110), 100_003, "C", "f32", True),
    ("km,kn->mn", (110, 90), 100_003, "F", "f32", True),
]


@pytest.mark.parametrize("eq,mn,k,order,dtype,pads", RUN_CASES)
def test_padded_split_runs(eq, mn, k, order, dtype, pads):
    ext = dict(m=mn[0], n=mn[1], k=k)
    rng = np.random.default_rng(5)
    shapes = [tuple(ext[c] for c in x) for x in eq.split("->")[0].split(",")]
    ops = [rng.standard_normal(sh).astype(np.dtype(dtype.replace("f", "float"))) for sh in shapes]
    if order == "F":
        ops = [np.asfortranarray(x) for x in ops]
    got, s = _run(eq, *ops)
    assert bool(s.pad_ext) == pads and s.split_mode is not None and s.tail is not None
    ref = np.einsum(eq, *[x.astype(np.float64) for x in ops], optimize=True)
    scale = np.einsum(eq, *[np.abs(x.astype(np.float64)) for x in ops], optimize=True)
    assert np.all(np.abs(got.astype(np.float64) - ref) <= 3e-3 * scale)


def test_realign_plan_refusals():
    """The realigning copy takes views whose last axis is contiguous, into whole 16-byte rows, and nothing else."""
    from gettpy.kernels.realign import plan_realign

    p = plan_realign((94, 1001), (1001, 1), 2, 1008)
    assert p is not None and p.rows == 94 and p.vectors == 94 * 1008 * 2 // 16
    assert plan_realign((94, 1001), (1, 94), 2, 1008) is None      # (k strided: a transpose)
    assert plan_realign((94, 1001), (1001, 1), 2, 1004) is None    # (rows of 2008 bytes: not whole vectors)
    assert plan_realign((94, 1001), (1001, 1), 2, 1000) is None    # (shorter than the row)
    assert plan_realign((0, 1001), (1001, 1), 2, 1008) is None


def test_padded_pack_prices():
    """The zero-filled pack of contiguous rows costs one read and one padded write at the copy bandwidth (the
    realigning row copy); of a transposed source, one tiled copy at its vectors (realigned 16-byte words for
    2-byte elements; 4-byte ones as the strides allow); padding beyond the leading mode, a dense pack, the fill
    and the element-wise placement."""
    from gettpy.plan.align import copy_vectors, padded_pack_us

    t = DEFAULT_TARGET
    ext, pext = dict(m=94, k=100_001), dict(m=94, k=100_008)
    rows = TensorInfo("A", ("m", "k"), (100_001, 1), "f16")       # k contiguous
    cols = TensorInfo("A", ("m", "k"), (1, 94), "f16")            # m contiguous
    n, npad = 94 * 100_001 * 2, 94 * 100_008 * 2
    assert padded_pack_us(rows, ("k", "m"), ext, pext, t) == pytest.approx(t.copy_us(n + npad) + t.launch_us)
    assert copy_vectors(cols, ("k", "m"), ext) == (16, 2)  # (reads along m = 94 realigned; writes single elements)
    assert padded_pack_us(cols, ("k", "m"), ext, pext, t) == pytest.approx(
        (t.load_us(n, 16) + t.load_us(npad, 16)) / t.transpose_share(2) + t.launch_us)
    cols32 = TensorInfo("A", ("m", "k"), (1, 94), "f32")
    assert padded_pack_us(cols32, ("k", "m"), ext, pext, t) == pytest.approx(
        (t.load_us(2 * n, 8) + t.load_us(2 * npad, 16)) / t.transpose_share(4) + t.launch_us)
    assert t.transpose_share(1) == t.transpose_share(2) < t.transpose_share(4) == t.transpose_share(8) < 1
    both = dict(pext, m=96)  # (two modes padded: no single copy writes that)
    assert padded_pack_us(cols, ("k", "m"), ext, both, t) > 2 * padded_pack_us(cols, ("k", "m"), ext, pext, t)


def test_padded_packs_apply_the_op():
    """An op on an input of a padded memory-bound schedule is applied by its pack, before the margin's zeros:
    exp(0) = 1 would add the margin's products if the core applied it after the padding (a CCSD-like
    `ac,cbij->abij` with odd orbital counts, whose B is packed transposed with c zero-filled)."""
    ext = dict(a=97, b=61, c=95, i=21, j=23)
    rng = np.random.default_rng(9)
    a = (0.1 * rng.standard_normal((97, 95))).astype(np.float16)
    b = (0.1 * rng.standard_normal((95, 61, 21, 23))).astype(np.float16)
    got, s = _run("ac,cbij->abij", a, b, op_b=gops.exp)
    assert dict(s.pad_ext)["c"] == 96 and s.pack_b.op.is_identity  # (padded, the op applied by B's pack)
    assert all(dict(s.pad_ext)[m] == e for m, e in ext.items() if m != "c")
    b64 = np.exp(b.astype(np.float64))
    ref = np.einsum("ac,cbij->abij", a.astype(np.float64), b64)
    scale = np.einsum("ac,cbij->abij", np.abs(a.astype(np.float64)), b64)
    assert np.all(np.abs(got.astype(np.float64) - ref) <= 3e-3 * scale)


def test_transposed_odd_rows_take_one_padded_tiled_copy():
    """A row-major input whose k rows are n-contiguous with an odd pitch (a CCSD-like `ac,cbij->abij` with odd
    orbital counts, in no benchmark): element loads in place, so it is packed k-major with k zero-filled to
    whole vectors, a pack the tiled copy makes in one pass (read along n, written along k); run end to end on
    the CPU executor against numpy."""
    from gettpy.kernels.permute import plan_permute

    ext = dict(a=97, b=61, c=95, i=21, j=23)
    p = _problem("ac,cbij->abij", ext, "f16", "C")
    s = make_schedule(p)
    pad = dict(s.pad_ext)
    assert pad["c"] == 96 and s.pack_b.modes[0] == "c" and s.pack_b.strides[0] == 1
    st = p.b.stride_of()
    view = tuple(reversed(s.pack_b.modes))
    pp = plan_permute(tuple(ext[m] for m in view), tuple(st[m] for m in view), 2, pad=96)
    assert pp is not None and pp.shift and pp.po == 96
    rng = np.random.default_rng(3)
    a = rng.standard_normal((97, 95)).astype(np.float16)
    b = rng.standard_normal((95, 61, 21, 23)).astype(np.float16)
    got, s2 = _run("ac,cbij->abij", a, b)
    assert s2.pad_ext == s.pad_ext
    ref = np.einsum("ac,cbij->abij", a.astype(np.float64), b.astype(np.float64))
    scale = np.einsum("ac,cbij->abij", np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)))
    assert np.all(np.abs(got.astype(np.float64) - ref) <= 3e-3 * scale)


@pytest.mark.parametrize("seed", range(4))
def test_no_pack_copies_an_input_into_its_own_layout(seed):
    """Over random dense problems of odd extents (both orders, f16 and f32), no schedule packs an input into
    the layout it already has (same strides for every mode of extent > 1, same dtype and op): such a copy
    changes nothing the core reads."""
    rng = np.random.default_rng(seed)
    eqs = ["ac,cbij->abij", "km,kn->mn", "bmk,bkn->bmn", "awc,asb->wcsb", "ijk,ri->rjk", "bi,bj->bij"]
    for eq in eqs:
        modes = set(eq.replace(",", "").replace("->", ""))
        ext = {m: int(rng.integers(3, 400)) | 1 for m in modes}
        while np.prod([float(v) for v in ext.values()]) > 4e8:
            ext = {m: max(3, v // 2) | 1 for m, v in ext.items()}
        for dt in ("f16", "f32"):
            for order in "CF":
                p = _problem(eq, ext, dt, order)
                s = make_schedule(p)
                if s.pad_ext:
                    continue
                for src, pk in ((p.a, s.pack_a), (p.b, s.pack_b)):
                    if pk is not None:
                        same = all(src.stride_of()[m] == pk.stride_of()[m] for m in src.modes if ext[m] > 1)
                        assert not same, (eq, ext, dt, order, src.name)
