"""Zero-filled k-major packs for memory-bound GEMMs whose k-contiguous rows are not whole 16-byte vectors
(plan/align.py): which schedule the loaders' model picks for odd and aligned K in both memory orders, on shapes
in no benchmark, and the padded split schedules run end to end on the CPU executor against numpy in float64."""
from __future__ import annotations

import numpy as np
import pytest

import gettpy
from gettpy.plan.cache import clear_plan_cache
from gettpy.plan.problem import ContractionProblem, TensorInfo
from gettpy.plan.schedule import make_schedule
from gettpy.plan.target import DEFAULT_TARGET


def _problem(eq: str, ext: dict[str, int], dtype: str, order: str) -> ContractionProblem:
    lhs, out = eq.split("->")
    ins = lhs.split(",")

    def info(name, modes):
        seq = modes[::-1] if order == "C" else modes
        st, acc = {}, 1
        for m in seq:
            st[m] = acc
            acc *= ext[m]
        return TensorInfo(name, tuple(modes), tuple(st[m] for m in modes), dtype)

    return ContractionProblem(info("A", ins[0]), info("B", ins[1]), None, info("D", out), tuple(sorted(ext.items())))


# (einsum, extents, dtype, order, padded k extent or None)
PLAN_CASES = [
    ("mk,nk->mn", dict(m=88, n=37, k=1_200_007), "f16", "C", 1_200_008),  # odd rows: element loads -> pad
    ("mk,nk->mn", dict(m=88, n=37, k=1_200_000), "f16", "C", None),       # whole vectors: in place
    ("km,kn->mn", dict(m=77, n=45, k=700_001), "f16", "C", 700_008),       # odd m runs, odd K -> pad
    ("km,kn->mn", dict(m=77, n=45, k=700_002), "f16", "F", None),          # 4-byte k vectors: not worth a copy
    ("mk,nk->mn", dict(m=88, n=37, k=1_200_007), "f32", "C", None),        # 4-byte elements: cp.async, no pad
    ("ik,kj->ij", dict(i=1031, j=1029, k=843), "f16", "C", None),          # compute-bound: not this rule's
]


@pytest.mark.parametrize("eq,ext,dtype,order,padded", PLAN_CASES)
def test_align_decision(eq, ext, dtype, order, padded):
    s = make_schedule(_problem(eq, ext, dtype, order))
    pad = dict(s.pad_ext)
    if padded is None:
        assert not pad or pad["k"] == ext["k"] or len(ext) == 3 and "i" in ext
        if "i" not in ext:
            assert not pad
        return
    assert pad["k"] == padded and all(pad[m] == e for m, e in ext.items() if m != "k")
    assert s.pack_a is not None and s.pack_b is not None and s.split_mode is not None
    # the split core reads both packs k-major in 16-byte vectors, every slice starting aligned
    vec = 16 // s.problem.a.itemsize
    assert s.core.layout_a.vector_width("k") == vec and s.core.layout_b.vector_width("k") == vec
    assert dict(s.core.problem.extents)["k"] % vec == 0 and s.tail_from % vec == 0


def test_load_model():
    t = DEFAULT_TARGET
    assert t.load_gbs(16) == t.copy_gbs and t.load_gbs(32) == t.copy_gbs
    assert t.load_gbs(2) == pytest.approx(t.copy_gbs * t.sync_load_frac)
    assert t.load_gbs(2) < t.load_gbs(4) < t.load_gbs(8) < t.load_gbs(16)


# (einsum, (m, n), K, order, whether the model pads): the padded split schedule and its in-place peer
RUN_CASES = [
    ("mk,nk->mn", (40, 24), 200_003, "C", True),
    ("mk,nk->mn", (40, 24), 200_003, "F", False),
    ("km,kn->mn", (40, 24), 200_003, "F", True),
    ("km,kn->mn", (40, 24), 200_003, "C", False),
]


@pytest.mark.parametrize("eq,mn,k,order,pads", RUN_CASES)
def test_padded_split_runs(eq, mn, k, order, pads):
    ext = dict(m=mn[0], n=mn[1], k=k)
    s = make_schedule(_problem(eq, ext, "f16", order))
    assert bool(s.pad_ext) == pads and s.split_mode is not None and s.tail is not None
    rng = np.random.default_rng(5)
    shapes = [tuple(ext[c] for c in x) for x in eq.split("->")[0].split(",")]
    ops = [rng.standard_normal(sh).astype(np.float16) for sh in shapes]
    if order == "F":
        ops = [np.asfortranarray(x) for x in ops]
    clear_plan_cache()
    got = gettpy.einsum(eq, *ops)
    ref = np.einsum(eq, *[x.astype(np.float64) for x in ops])
    scale = np.einsum(eq, *[np.abs(x.astype(np.float64)) for x in ops])
    assert np.all(np.abs(np.asarray(got, np.float64) - ref) <= 3e-3 * scale)
