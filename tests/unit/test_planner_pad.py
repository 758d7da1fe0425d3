"""Zero-filled k-major packs for compute-bound tensor-core GEMMs with an odd leading k extent
(Schedule.pad_ext): shapes in no benchmark (odd extents, both memory orders, a 4-mode contraction, an op),
planned and run end to end on the CPU executor against numpy in float64."""
from __future__ import annotations

import numpy as np
import pytest
from harness import dense_problem, extents_of

import gettpy
from gettpy.plan.cache import clear_plan_cache
from gettpy.plan.problem import ContractionProblem
from gettpy.plan.schedule import make_schedule

#: the GPU's schedules (their stagings) run on the CPU executor here: see conftest.py
pytestmark = pytest.mark.usefixtures("gpu_schedules_on_the_cpu")


def _problem(eq: str, shapes, dtype: str, order: str) -> ContractionProblem:
    return dense_problem(eq, extents_of(eq, shapes), dtype, order)


# (einsum, shapes, dtype, padded k mode or None)
PLAN_CASES = [
    ("ik,kj->ij", [(1031, 843), (843, 1029)], "f16", "k"),     # odd K: padded to 848
    ("ik,kj->ij", [(1031, 843), (843, 1029)], "f32", "k"),     # (the f64 tensor cores: 4-byte vectors, 844)
    ("ik,kj->ij", [(1031, 848), (848, 1029)], "f16", None),    # K whole vectors: nothing to pad
    ("ik,kj->ij", [(300, 843), (843, 301)], "f16", None),      # memory-bound: its odd rows read realigned in
    #                                                            place (OperandSpec.realign), no padded copies
    ("ik,kj->ij", [(300, 840), (840, 301)], "f16", None),      # memory-bound, K whole vectors: no pad
    ("aebf,dfce->abcd", [(45, 37, 43, 37), (41, 37, 47, 37)], "f16", "e"),
]


@pytest.mark.parametrize("eq,shapes,dtype,mode", PLAN_CASES)
@pytest.mark.parametrize("order", ["C", "F"])
def test_pad_decision(eq, shapes, dtype, mode, order):
    p = _problem(eq, shapes, dtype, order)
    s = make_schedule(p)
    pad = dict(s.pad_ext)
    ext = dict(p.extents)
    if mode is None:
        assert not pad
        return
    vec = 16 // p.a.itemsize
    lead = s.core.part.k[0]
    assert pad[lead] % vec == 0 and 0 < pad[lead] - ext[lead] < vec
    assert all(pad[m] == ext[m] for m in ext if m != lead)
    assert s.pack_a is not None and s.pack_b is not None
    # the core reads both packs k-major in 16-byte vectors
    assert s.core.layout_a.vector_width("k") == vec and s.core.layout_b.vector_width("k") == vec


RUN_CASES = [
    ("ik,kj->ij", [(1031, 843), (843, 1029)]),
    ("aebf,dfce->abcd", [(45, 37, 43, 37), (41, 37, 47, 37)]),
]


@pytest.mark.parametrize("eq,shapes", RUN_CASES)
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
def test_padded_packs_run(eq, shapes, dtype, order):
    rng = np.random.default_rng(2)
    ops = [rng.standard_normal(s).astype(dtype) for s in shapes]
    if order == "F":
        ops = [np.asfortranarray(x) for x in ops]
    clear_plan_cache()
    got = gettpy.einsum(eq, *ops)
    ref = np.einsum(eq, *[x.astype(np.float64) for x in ops], optimize=True)
    scale = np.einsum(eq, *[np.abs(x.astype(np.float64)) for x in ops], optimize=True)
    tol = 3e-3 if dtype == np.float16 else 3e-5
    assert np.all(np.abs(np.asarray(got, np.float64) - ref) <= tol * scale)


def test_padded_pack_applies_the_op_once():
    """An op on an input is applied by its (padded) pack; the zeros of the margin stay zeros whatever the op
    (exp(0) = 1 would add the margin's products if the op ran after the padding)."""
    rng = np.random.default_rng(4)
    a = rng.standard_normal((1031, 843)).astype(np.float16) * np.float16(0.1)
    b = rng.standard_normal((843, 1029)).astype(np.float16)
    got = gettpy.einsum("ik,kj->ij", a, b, ops=("exp", None))
    ref = np.exp(a.astype(np.float32)).astype(np.float16).astype(np.float64) @ b.astype(np.float64)
    scale = np.abs(np.exp(a.astype(np.float64))) @ np.abs(b.astype(np.float64))
    assert np.all(np.abs(np.asarray(got, np.float64) - ref) <= 3e-3 * scale)


@pytest.mark.parametrize("dtype", ["bf16", "f16", "f32"])
@pytest.mark.parametrize("op", ["log", "exp", "sigmoid"])
def test_padded_packs_never_leave_an_op_to_the_core(dtype, op):
    """A zero-filled pack must hold op(x), zeros in the margin: were the op left to the core, it would apply it to
    the margin too (log(0) = -inf, exp(0) = 1 added per margin element). Where a pack cannot apply the op
    (bfloat16: the packs apply ops to float16, float32 and float64 only), K is not padded at all."""
    from dataclasses import replace

    from gettpy.ops import as_op

    p = _problem("mk,nk->mn", [(1500, 4099), (1400, 4099)], dtype, "C")
    p = replace(p, b=replace(p.b, op=as_op(op)))
    s = make_schedule(p)
    for src, pk in ((p.a, s.pack_a), (p.b, s.pack_b)):
        if s.pad_ext and pk is not None:
            assert pk.op.is_identity, (dtype, op, src.name)
    if dtype == "bf16":
        assert not s.pad_ext
