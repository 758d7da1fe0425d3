"""The diagonal fold of a long sum over a tiny output (gettpy/plan/fold.py): dot products, vector-matrix
products and batched dot products of odd and prime lengths, both memory orders, views, ops, C with beta,
planned and run end to end on the CPU executor against numpy in float64."""
from __future__ import annotations

import numpy as np
import pytest
from harness import assert_each_close, laid_out

import gettpy
from gettpy.plan import fold as F
from gettpy.plan.cache import cached_schedule, clear_plan_cache
from gettpy.plan.problem import ContractionProblem, TensorInfo
from gettpy.plan.schedule import make_schedule
from gettpy.plan.target import H100_SXM

#: the GPU's schedules (their stagings) run on the CPU executor here: see conftest.py
pytestmark = pytest.mark.usefixtures("gpu_schedules_on_the_cpu")


TOL = {np.float16: 3e-3, np.float32: 3e-5, np.float64: 1e-12}


def _problem(eq: str, shapes, dtype: str) -> ContractionProblem:
    lhs, out = eq.split("->")
    ins = lhs.split(",")
    ext = {m: e for modes, shp in zip(ins, shapes, strict=True) for m, e in zip(modes, shp, strict=True)}

    def info(name, modes):
        st, acc = {}, 1
        for m in reversed(modes):
            st[m] = acc
            acc *= ext[m]
        return TensorInfo(name, tuple(modes), tuple(st[m] for m in modes), dtype)

    return ContractionProblem(info("A", ins[0]), info("B", ins[1]), None, info("D", out), tuple(sorted(ext.items())))


# (einsum, shapes, folded): whether the model folds it (a tiny output over a long K folds; wide outputs do not)
PLAN_CASES = [
    ("k,k->", [(10_000_019,), (10_000_019,)], True),
    ("k,k->", [(1 << 20,), (1 << 20,)], True),
    ("k,kj->j", [(500_009,), (500_009, 3)], True),
    ("bk,bk->b", [(2, 300_007), (2, 300_007)], True),
    ("ik,kj->ij", [(62, 1_700_011), (1_700_011, 55)], False),  # (64 x 64 tiles pad little)
    ("ik,kj->ij", [(512, 4096), (4096, 512)], False),          # (a full grid)
    ("k,k->", [(10_000,), (10_000,)], False),                  # (shorter than 2 FOLD SPLIT_MIN_K: no fold)
]


@pytest.mark.parametrize("eq,shapes,folded", PLAN_CASES)
@pytest.mark.parametrize("dtype", ["f16", "f32"])
def test_fold_decision(eq, shapes, folded, dtype):
    p = _problem(eq, shapes, dtype)
    s = make_schedule(p)
    assert bool(s.fold) == folded
    if folded:
        mode, k1a, k1b = s.fold
        inner_ext = dict(s.inner.problem.extents)
        assert inner_ext[k1a] == inner_ext[k1b] == F.FOLD
        assert inner_ext[mode] * F.FOLD + (dict(p.extents)[mode] - s.tail_from) == dict(p.extents)[mode]
        assert s.tail_from == inner_ext[mode] * F.FOLD
        assert (s.tail is None) == (s.tail_from == dict(p.extents)[mode])


RUN_CASES = [
    ("k,k->", [(40_009,), (40_009,)]),        # a tail of 9 values
    ("k,k->", [(40_000,), (40_000,)]),        # no tail
    ("k,kj->j", [(50_021,), (50_021, 3)]),
    ("ik,k->i", [(2, 50_021), (50_021,)]),
    ("bk,bk->b", [(3, 40_003), (3, 40_003)]),
    ("kb,bk->", [(40_003, 2), (2, 40_003)]),
]


@pytest.mark.parametrize("eq,shapes", RUN_CASES)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("layout", ["C", "F", "view"])
def test_fold_runs(eq, shapes, dtype, layout):
    """gettpy.einsum on the CPU executor equals numpy in float64 where the fold (and its tail) plans the sum."""
    ops = laid_out(np.random.default_rng(3), shapes, dtype, layout)
    clear_plan_cache()
    assert_each_close(eq, gettpy.einsum(eq, *ops), ops, TOL[dtype])


def test_fold_is_what_runs():
    clear_plan_cache()
    s = cached_schedule(_problem("k,k->", [(40_009,), (40_009,)], "f32"), "numpy")
    assert s.fold and s.tail is not None


def test_fold_with_ops_c_and_beta():
    """Input ops apply inside the folded GEMM and the tail; beta * C and the output op once, after the diagonal
    and the tail are summed."""
    rng = np.random.default_rng(9)
    a = rng.standard_normal(40_009).astype(np.float32)
    b = rng.standard_normal((40_009, 2)).astype(np.float32)
    c = rng.standard_normal(2).astype(np.float32)
    con = gettpy.Contraction("k,kj->j", a, b, c=c, ops=("relu", None), op_out="neg")
    got = con.execute(alpha=1.5, beta=-0.5)
    ref = -(1.5 * np.maximum(a, 0).astype(np.float64) @ b.astype(np.float64) - 0.5 * c)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-3)


def test_fold_gain_model():
    """The fold pays where padded products outweigh the reads and fall at least MIN_GAIN times."""
    g = F.fold_gain(1, 1, 10**7, 1, 2, (16, 128), (16, 128), "mma", H100_SXM)
    assert g == pytest.approx(16 * 128 / (16 * 128 / 16))
    assert F.fold_gain(62, 55, 10**6, 1, 2, (64, 64), (128, 128), "mma", H100_SXM) == 0.0  # (reads dominate)
