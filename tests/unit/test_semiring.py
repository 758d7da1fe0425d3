"""Semirings (gettpy.ops.Semiring): D = ⊕_k A ⊗ B, on the CPU executor against a brute-force numpy
reference (every operand broadcast to all modes, ⊗-multiplied, then ⊕-reduced over the summed modes),
plus the kernel source of a semiring specialisation compiled with NVRTC."""
from __future__ import annotations

import numpy as np
import pytest
from harness import brute

import gettpy
from gettpy import ops
from gettpy.errors import DtypeError, GettpyError

CASES = [
    ("ik,kj->ij", [(5, 7), (7, 3)]),
    ("abk,kc->cab", [(3, 4, 9), (9, 2)]),     # transposed output
    ("ij->i", [(4, 6)]),                      # one operand: ⊗ with the semiring's one
    ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]),  # opt_einsum path, intermediates
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),  # batch
    ("ij,k->i", [(3, 4), (5,)]),              # modes summed in one operand only
    ("ik,kj->ij", [(4, 0), (0, 3)]),          # empty sum: the semiring's zero
    ("...k,k->...", [(2, 3, 6), (6,)]),
]
SEMIRINGS = [ops.max_plus, ops.min_plus, ops.max_times, ops.min_times, "max_plus"]


@pytest.mark.parametrize("sr", SEMIRINGS, ids=lambda s: s if isinstance(s, str) else s.name)
@pytest.mark.parametrize("subs,shapes", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_semiring_matches_brute_force(subs, shapes, sr, dtype):
    s = ops.as_semiring(sr)
    rng = np.random.default_rng(len(subs))
    positive = s.name.endswith("times")  # (max, ×), (min, ×): semirings on non-negative values
    xs = [(rng.uniform(0.1, 2.0, sh) if positive else rng.standard_normal(sh)).astype(dtype) for sh in shapes]
    got = gettpy.einsum(subs, *xs, semiring=sr)
    ref = brute(subs.replace("...", "xy"), s, *xs) if "..." in subs else brute(subs, s, *xs)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, ref, rtol=1e-5 if dtype == np.float32 else 1e-12)


def test_semiring_with_strided_views_ops_and_out():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((12, 9))[::2, ::-1]  # non-contiguous, negative strides
    b = np.asfortranarray(rng.standard_normal((9, 5)))
    out = np.full((5, 6), np.nan).T
    gettpy.einsum("ik,kj->ij", a, b, out=out, semiring="min_plus", ops=[ops.relu, None], op_out=ops.neg)
    ref = -brute("ik,kj->ij", ops.min_plus, np.maximum(a, 0), b)
    np.testing.assert_allclose(out, ref, rtol=1e-12)


def test_custom_semiring_and_nan_propagation():
    bottleneck = ops.semiring("(a > b ? a : b)", "(x < y ? x : y)", zero=-np.inf, one=np.inf,
                              numpy_add=np.maximum, numpy_mul=np.minimum, name="max_min")
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((4, 6)), rng.standard_normal((6, 3))
    np.testing.assert_allclose(gettpy.einsum("ik,kj->ij", a, b, semiring=bottleneck),
                               brute("ik,kj->ij", bottleneck, a, b))
    a[1, 2] = np.nan  # max-plus propagates NaN like numpy's maximum
    got = gettpy.einsum("ik,kj->ij", a, b, semiring="max_plus")
    assert np.isnan(got[1]).all() and np.isfinite(np.delete(got, 1, axis=0)).all()


def test_semiring_is_part_of_the_cache_key():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    plain = gettpy.einsum("ik,kj->ij", a, b)
    mp = gettpy.einsum("ik,kj->ij", a, b, semiring="max_plus")
    np.testing.assert_allclose(plain, a @ b)
    np.testing.assert_allclose(mp, brute("ik,kj->ij", ops.max_plus, a, b))


def test_semiring_errors():
    a = np.ones((2, 3))
    with pytest.raises(GettpyError, match="unknown semiring 'max_pls'"):
        gettpy.einsum("ik,kj->ij", a, a.T, semiring="max_pls")
    with pytest.raises(GettpyError, match="must be a CUDA expression using a and b"):
        ops.semiring("max(x, y)", "(x + y)", -np.inf, 0.0, np.maximum, np.add)
    with pytest.raises(GettpyError, match="binary numpy ufunc"):
        ops.semiring("(a > b ? a : b)", "(x + y)", -np.inf, 0.0, max, np.add)
    with pytest.raises(DtypeError, match="real types only"):
        gettpy.einsum("ik,kj->ij", a.astype(complex), a.T, semiring="max_plus")


def test_semiring_and_tf32_through_the_plan_api():
    """gettpy.Contraction / gettpy.plan take the semiring and the compute type as well (CPU executor)."""
    from gettpy.dtypes import round_tf32

    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((6, 9)), rng.standard_normal((9, 5))
    con = gettpy.Contraction("ik,kj->ij", a, b, semiring="min_plus")
    np.testing.assert_allclose(con.execute(), brute("ik,kj->ij", ops.min_plus, a, b))
    desc = gettpy.TensorDescriptor.of
    out = np.empty((6, 5))
    p = gettpy.plan(desc(a), "ik", desc(b), "kj", desc(out), "ij", semiring=ops.max_times)
    gettpy.contract(p, 1.0, np.abs(a), np.abs(b), 0.0, None, out)
    np.testing.assert_allclose(out, brute("ik,kj->ij", ops.max_times, np.abs(a), np.abs(b)))
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    con = gettpy.Contraction("ik,kj->ij", a32, b32, compute="tf32")
    want = round_tf32(a32).astype(np.float64) @ round_tf32(b32).astype(np.float64)
    np.testing.assert_allclose(con.execute(), want, rtol=1e-5, atol=1e-5)
