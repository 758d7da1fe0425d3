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


@pytest.mark.parametrize("which", ["a", "b", "d"])
def test_numpy_scalar_operand_is_a_dtype_error(which):
    # a numpy scalar has shape, dtype and strides but no memory: it raised a raw AttributeError
    x = np.ones((), np.float64)
    p = gettpy.plan(TD.of(x), "", TD.of(x), "", TD.of(x), "")
    args = {"a": x, "b": x, "d": np.zeros((), np.float64)}
    args[which] = np.float64(2.0)
    with pytest.raises(DtypeError, match=which.upper()):
        gettpy.contract(p, 1.0, args["a"], args["b"], 0.0, None, args["d"])


def test_numpy_scalar_in_contraction_is_a_dtype_error():
    with pytest.raises(DtypeError):
        gettpy.Contraction("i,i->", np.float64(1.0), np.ones(1)).execute()


def test_zero_d_arrays_contract():
    x, y, d = np.array(3.0), np.array(4.0), np.zeros(())
    gettpy.contract(gettpy.plan(TD.of(x), "", TD.of(y), "", TD.of(d), ""), 2.0, x, y, 0.0, None, d)
    assert d == 24.0
