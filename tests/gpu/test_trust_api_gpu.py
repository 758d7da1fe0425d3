"""GPU checks of the plan API's and einsum's type rules on CuPy arrays (skipped without a device):
integer types refused with a DtypeError naming the type, alpha == 0 reading neither A nor B, mixed
real x complex operands contracted in their common type. References: numpy in float64 / complex128."""
from __future__ import annotations

import numpy as np
import pytest

import gettpy
from gettpy import dtypes
from gettpy.errors import DtypeError

pytestmark = pytest.mark.gpu


def test_integer_cupy_einsum_refused_unless_the_kernel_has_it():
    import cupy as cp

    a = cp.arange(6, dtype=cp.int32).reshape(2, 3)
    if "i32" in dtypes.GPU_DTYPES:
        got = gettpy.einsum("ij,kj->ik", a, a)
        np.testing.assert_array_equal(cp.asnumpy(got), np.einsum("ij,kj->ik", cp.asnumpy(a), cp.asnumpy(a)))
        return
    with pytest.raises(DtypeError, match="int32"):
        gettpy.einsum("ij,kj->ik", a, a)


def test_alpha_zero_reads_neither_a_nor_b_on_the_gpu():
    import cupy as cp

    rng = np.random.default_rng(1)
    a, b, c = (rng.standard_normal(s) for s in ((3, 4), (4, 5), (3, 5)))
    a[0, 0] = np.inf
    b[1, 1] = np.nan
    ga, gb, gc = cp.asarray(a), cp.asarray(b), cp.asarray(c)
    gd = cp.full((3, 5), 7.0)
    desc = gettpy.TensorDescriptor.of
    p = gettpy.plan(desc(ga), "ik", desc(gb), "kj", desc(gc), "ij", desc(gd), "ij")
    gettpy.contract(p, 0.0, ga, gb, 2.0, gc, gd)
    np.testing.assert_allclose(cp.asnumpy(gd), 2 * c, rtol=1e-15)
    gettpy.contract(p, 0.0, ga, gb, 0.0, None, gd)
    np.testing.assert_array_equal(cp.asnumpy(gd), np.zeros((3, 5)))


def test_mixed_real_complex_contraction_on_the_gpu():
    import cupy as cp

    rng = np.random.default_rng(2)
    a = rng.standard_normal((8, 16)).astype(np.float32)
    b = (rng.standard_normal((16, 4)) + 1j * rng.standard_normal((16, 4))).astype(np.complex64)
    got = gettpy.Contraction("ik,kj->ij", cp.asarray(a), cp.asarray(b)).execute()
    assert got.dtype == cp.complex64
    want = a.astype(np.complex128) @ b.astype(np.complex128)
    np.testing.assert_allclose(cp.asnumpy(got), want, rtol=1e-4, atol=1e-4)
