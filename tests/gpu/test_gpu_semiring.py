"""Semiring contractions on the GPU kernel (simt path), against the brute-force float64 reference of
tests/test_semiring.py (skipped without a device)."""
from __future__ import annotations

import numpy as np
import pytest
from harness import brute

import gettpy
from gettpy import ops

pytestmark = pytest.mark.gpu

CASES = [
    ("ik,kj->ij", {"i": 130, "j": 29, "k": 37}),           # partial m, n and k tiles
    ("abk,kc->cab", {"a": 9, "b": 17, "c": 70, "k": 100}),  # transposed output
    ("bij,bjk->bik", {"b": 3, "i": 40, "j": 33, "k": 50}),  # batch
    ("ij->i", {"i": 300, "j": 77}),                        # one operand: the semiring's one
    ("ij,jk,kl->il", {"i": 20, "j": 30, "k": 40, "l": 10}),  # three operands (intermediates)
    ("ik,kj->ij", {"i": 64, "j": 64, "k": 256}),            # full tiles
    ("ik,jk->ij", {"i": 70, "j": 50, "k": 45}),             # both k-major, K ending inside a k vector
]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("sr", ["max_plus", "min_plus", "max_times"])
@pytest.mark.parametrize("subs,ext", CASES, ids=[c[0] + str(i) for i, c in enumerate(CASES)])
def test_gpu_semiring(subs, ext, sr, dtype):
    import cupy as cp

    s = ops.as_semiring(sr)
    ins = subs.split("->")[0].split(",")
    rng = np.random.default_rng(7)
    positive = sr.endswith("times")
    hs = [(rng.uniform(0.5, 1.5, [ext[m] for m in t]) if positive else rng.uniform(-2, 2, [ext[m] for m in t]))
          .astype(dtype) for t in ins]
    order = "F" if len(ins[0]) % 2 else "C"
    xs = [cp.asarray(np.asarray(h, order=order)) for h in hs]
    got = gettpy.einsum(subs, *xs, semiring=sr)
    assert isinstance(got, cp.ndarray) and got.dtype == np.dtype(dtype)
    ref = brute(subs, s, *hs)
    # max/min pick one term: the error is the rounding of a sum (+) or a product (×) of a few terms and
    # of the f16 intermediates of a three-operand chain
    tol = {"float16": 2e-2, "float32": 1e-5, "float64": 1e-12}[dtype]
    np.testing.assert_allclose(cp.asnumpy(got).astype(np.float64), ref, rtol=tol, atol=tol * np.abs(ref).max())


def test_gpu_semiring_with_fused_ops_and_strided_out():
    import cupy as cp

    rng = np.random.default_rng(8)
    ha, hb = rng.standard_normal((70, 45)).astype(np.float32), rng.standard_normal((45, 33)).astype(np.float32)
    a, b = cp.asarray(ha), cp.asarray(hb)
    out = cp.full((33, 70), np.nan, dtype=cp.float32).T  # a transposed view as out
    r = gettpy.einsum("ik,kj->ij", a, b, out=out, semiring="max_plus", ops=[ops.relu, None], op_out=ops.neg)
    assert r is out
    ref = -brute("ik,kj->ij", ops.max_plus, np.maximum(ha, 0), hb)
    np.testing.assert_allclose(cp.asnumpy(out), ref, rtol=1e-5, atol=1e-5)


def test_gpu_contraction_with_semiring_and_tf32():
    """The plan-level API on the GPU: Contraction(semiring=...) and Contraction(compute="3xtf32")."""
    import cupy as cp

    rng = np.random.default_rng(9)
    ha, hb = rng.uniform(-1, 1, (90, 70)).astype(np.float32), rng.uniform(-1, 1, (70, 50)).astype(np.float32)
    a, b = cp.asarray(ha), cp.asarray(hb)
    got = gettpy.Contraction("ik,kj->ij", a, b, semiring="min_plus").execute()
    np.testing.assert_allclose(cp.asnumpy(got), brute("ik,kj->ij", ops.min_plus, ha, hb), rtol=1e-5, atol=1e-5)
    got = gettpy.Contraction("ik,kj->ij", a, b, compute="3xtf32").execute(alpha=2.0)
    np.testing.assert_allclose(cp.asnumpy(got), 2 * ha.astype(np.float64) @ hb, rtol=1e-5, atol=1e-4)
