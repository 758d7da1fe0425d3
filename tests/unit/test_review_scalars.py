"""Regression tests: alpha/beta too large for any float are a DtypeError naming them (a raw OverflowError
escaped), and alpha/beta in range still give numpy's values."""
from fractions import Fraction

import numpy as np
import pytest

import gettpy
from gettpy import TensorDescriptor as TD
from gettpy.errors import DtypeError


def _plan(dtype):
    x = np.ones((2, 2), dtype)
    return gettpy.plan(TD.of(x), "ij", TD.of(x), "jk", TD.of(x), "ik"), x


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
@pytest.mark.parametrize("value", [2**1100, -(10**400), Fraction(10**400, 3)])
@pytest.mark.parametrize("which", ["alpha", "beta"])
def test_huge_scalar_is_a_dtype_error(dtype, value, which):
    p, x = _plan(dtype)
    d = np.full((2, 2), 7, dtype)
    alpha, beta = (value, 0.0) if which == "alpha" else (1.0, value)
    with pytest.raises(DtypeError, match=which):
        gettpy.contract(p, alpha, x, x, beta, x, d)
    assert (d == 7).all()  # untouched


@pytest.mark.parametrize("alpha", [2**60, Fraction(1, 3), 1e300])
def test_large_but_representable_scalar(alpha):
    p, x = _plan(np.float64)
    d = np.zeros((2, 2))
    gettpy.contract(p, alpha, x, x, 0.0, None, d)
    np.testing.assert_allclose(d, np.full((2, 2), 2 * float(alpha)), rtol=1e-15)


def test_huge_int_alpha_on_integers_wraps():
    x = np.ones((2, 2), np.int32)
    out = np.zeros((2, 2), np.int32)
    gettpy.Contraction("ij,jk->ik", x, x, out=out).execute(alpha=2**100 + 3)
    assert (out.astype(np.int64) == (2 * (2**100 + 3)) % 2**32).all()
