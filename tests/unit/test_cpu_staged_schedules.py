"""The GPU's staged schedules (packs, split-K with its tail, diagonal folds) run on numpy arrays through
`backends.staged.run` around the CPU executor's core, checked against numpy: the CPU executor's own schedules
have no stagings (plan/cache.py's executor_stages), so these tests keep the stagings checked end to end."""
from __future__ import annotations

import numpy as np
import pytest

from gettpy import ops
from gettpy.backends import cpu, staged
from gettpy.dtypes import short_name
from gettpy.plan.cache import cached_schedule, executor_stages
from gettpy.plan.problem import ContractionProblem, TensorInfo
from gettpy.plan.schedule import make_schedule


def _problem(eq: str, a, b, d, c=None, op_c=None, op_d=None) -> ContractionProblem:
    """The problem of einsum `eq` on these arrays' own strides and dtypes (D's dtype the output's)."""
    lhs, out = eq.split("->")
    ins = lhs.split(",")
    ext = {}
    for modes, x in zip((*ins, out), (a, b, d), strict=True):
        ext.update(zip(modes, x.shape, strict=True))

    def info(name, modes, x, op=None):
        st = tuple(s // x.itemsize for s in x.strides)
        return TensorInfo(name, tuple(modes), st, short_name(x.dtype), op=op or ops.identity)

    tc = None if c is None else info("C", out, c, op_c)
    return ContractionProblem(info("A", ins[0], a), info("B", ins[1], b), tc, info("D", out, d, op_d),
                              tuple(sorted(ext.items())))


def _kinds(s) -> set[str]:
    k = set()
    if s.pack_a is not None or s.pack_b is not None:
        k.add("pack")
    if s.split_mode is not None:
        k.add("split")
    if s.tail is not None:
        k.add("tail")
    if s.fold:
        k.add("fold")
    return k


def _run(eq, a, b, out_dtype, c=None, alpha=1.0, beta=0.0, op_c=None, op_d=None):
    shape = dict(zip(eq.split("->")[0].replace(",", ""), (*a.shape, *b.shape), strict=True))
    d = np.full([shape[m] for m in eq.split("->")[1]], 7, dtype=out_dtype)  # (poisoned: every element written)
    s = make_schedule(_problem(eq, a, b, d, c, op_c, op_d))
    staged.run(s, np, cpu.execute, a, b, c, d, alpha, beta)
    return d, s


_R = np.random.default_rng(37)

# (einsum, A, B, output dtype, stagings the GPU's schedule must have)
INT_CASES = [
    ("ik,kj->ij", (3, 40_000), (40_000, 2), "fold"),
    ("k,k->", (200_003,), (200_003,), "fold"),
    ("bk,bk->b", (2, 300_007), (2, 300_007), "fold"),
]


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.bool_])
@pytest.mark.parametrize("eq,sa,sb,kind", INT_CASES)
def test_integer_and_bool_long_sums(eq, sa, sb, kind, dtype):
    """Integer sums are exact through the staged workspace (its slices and diagonal in the output's type)."""
    a = _R.integers(0, 2 if dtype is np.bool_ else 3, sa).astype(dtype)
    b = _R.integers(0, 2 if dtype is np.bool_ else 3, sb).astype(dtype)
    out = np.bool_ if dtype is np.bool_ else np.int64
    got, s = _run(eq, a, b, out)
    assert kind in _kinds(s)
    ref = np.einsum(eq, a.astype(np.int64), b.astype(np.int64))
    np.testing.assert_array_equal(got, ref.astype(bool) if out is np.bool_ else ref)


WIDE_CASES = [
    ("ik,kj->ij", (5, 3001), (3001, 7), {"split", "tail"}),
    ("k,k->", (200_003,), (200_003,), {"fold", "tail"}),
    ("ik,k->i", (3, 100_003), (100_003,), {"fold", "tail"}),
]


@pytest.mark.parametrize("src,dst", [(np.float32, np.float64), (np.complex64, np.complex128),
                                     (np.float64, np.float64), (np.float32, np.float32)])
@pytest.mark.parametrize("eq,sa,sb,kinds", WIDE_CASES)
def test_split_and_fold_into_a_wider_output_lose_nothing(eq, sa, sb, kinds, src, dst):
    """Single-precision inputs into a double output: the workspaces are as wide as the output, so the staged
    result is the double-precision sum of the exact products."""
    a = _R.standard_normal(sa).astype(src)
    b = _R.standard_normal(sb).astype(src)
    if src is np.complex64:
        a = a + 1j * _R.standard_normal(sa).astype(np.float32)
        b = b - 1j * _R.standard_normal(sb).astype(np.float32)
    got, s = _run(eq, a, b, dst)
    if s.split_mode is None and not s.fold:
        pytest.fail(f"{eq}: the GPU's schedule has no split or fold (stagings {_kinds(s)})")
    assert kinds <= _kinds(s) or (kinds - {"tail"}) <= _kinds(s)
    ref = np.einsum(eq, a.astype(dst), b.astype(dst))
    scale = np.einsum(eq, np.abs(a.astype(dst)), np.abs(b.astype(dst)))
    tol = 1e-5 if dst is np.float32 else 1e-13
    assert np.all(np.abs(got - ref) <= tol * np.maximum(scale, 1))


def test_split_with_c_beta_alpha_and_ops():
    """beta * op_c(C) and op_d once, after the split's slices and its tail are summed."""
    a = _R.standard_normal((6, 3001))
    b = _R.standard_normal((3001, 5))
    c = _R.standard_normal((6, 5))
    got, s = _run("ik,kj->ij", a, b, np.float64, c, 1.5, -0.5, ops.neg, ops.tanh)
    assert {"split", "tail"} <= _kinds(s)
    np.testing.assert_allclose(got, np.tanh(1.5 * a @ b + 0.5 * c), rtol=1e-12, atol=1e-12)


PACK_CASES = [
    ("ij,jk->ik", lambda m, n: (m[::-1, ::2], n[::2, ::-3])),
    ("ij,jk->ki", lambda m, n: (m[::-2, ::3], n[::3, ::-2])),
    ("ij,kj->ik", lambda m, n: (m[::2, ::-2], n[::-3, ::2])),
    ("ji,kj->ik", lambda m, n: (m.astype(np.float32)[::2, ::-2], n.astype(np.float32)[::-3, ::2])),
    ("bij,bjk->bik", lambda m, n: (m.reshape(3, 100, 300)[:, ::-1, ::3], n.reshape(3, 300, 100)[:, ::3, ::-1])),
]


@pytest.mark.parametrize("eq,make", PACK_CASES, ids=[c[0] for c in PACK_CASES])
def test_packed_gathered_inputs(eq, make):
    """Inputs with no stride-1 run are packed (one dense copy each) before the core reads them."""
    m, n = _R.standard_normal((300, 300)), _R.standard_normal((300, 300))
    a, b = make(m, n)
    got, s = _run(eq, a, b, a.dtype)
    assert "pack" in _kinds(s)
    tol = 1e-4 if a.dtype == np.float32 else 1e-12
    ref = np.einsum(eq, a.astype(np.complex128 if a.dtype.kind == "c" else np.float64), b)
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)


def test_cpu_executor_schedules_have_no_stagings():
    """The same problems planned for the CPU executor are the core alone (nothing packed, split or folded)."""
    assert not executor_stages("numpy") and executor_stages("cupy")
    a = _R.standard_normal((300, 300))[::-1, ::2]
    b = _R.standard_normal((150, 300))[:, ::-3]
    for eq, x, y, out in (("ij,jk->ik", a, b, np.float64),
                          ("k,k->", np.ones(200_003, np.float32), np.ones(200_003, np.float32), np.float64),
                          ("ik,kj->ij", np.ones((5, 3001), np.float32), np.ones((3001, 7), np.float32), np.float32)):
        shape = dict(zip(eq.split("->")[0].replace(",", ""), (*x.shape, *y.shape), strict=True))
        d = np.zeros([shape[m] for m in eq.split("->")[1]], out)
        p = _problem(eq, x, y, d)
        assert make_schedule(p).staged  # (the GPU's is staged)
        assert not cached_schedule(p, "numpy").staged


@pytest.mark.parametrize("eq,sa,sb", [("ai,kaj->ij", (1, 512), (3000, 1, 0)), ("ik,kj->ij", (40, 0), (0, 30)),
                                      ("bik,bkj->bij", (0, 4, 5), (0, 5, 6))])
@pytest.mark.parametrize("dt", ["int8", "float16", "float32"])
def test_zero_extent_schedules(eq, sa, sb, dt):
    """A mode of extent 0 (an empty D, or sums of nothing): the GPU's schedule runs (into D = 0 where K is empty)
    as numpy computes it; an empty D's is the core alone."""
    a, b = np.ones(sa, dt), np.ones(sb, dt)
    out = np.dtype(dt) if dt != "int8" else np.dtype(np.int64)
    d, s = _run(eq, a, b, out)
    assert d.size or not s.staged
    np.testing.assert_array_equal(d, np.einsum(eq, a, b).astype(out))
