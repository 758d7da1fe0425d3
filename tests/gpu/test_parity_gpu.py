"""numpy parity on CuPy operands: views for one-operand einsums that sum nothing (as CuPy's own einsum),
0-d results stay CuPy arrays, `order=` ('K' is C order on the GPU), `out=` receiving a `dtype=` result
under `casting`, and `pad`/`unpad` agreeing with the CPU path. numpy is the reference."""
from __future__ import annotations

import numpy as np
import pytest

import gettpy

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")


@pytest.mark.parametrize("subscripts,shape", [
    ("ii->i", (3, 3)), ("ij->ji", (2, 3)), ("...", (2, 3)), ("jii->ij", (2, 3, 3)), ("ijk->jik", (2, 3, 4)),
])
def test_cupy_views(subscripts, shape):
    h = np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape)
    a = cp.asarray(h)
    v = gettpy.einsum(subscripts, a)
    want = np.einsum(subscripts, h)
    assert isinstance(v, cp.ndarray) and v.strides == want.strides
    np.testing.assert_array_equal(cp.asnumpy(v), want)
    v[...] = 0
    want[...] = 0
    np.testing.assert_array_equal(cp.asnumpy(a), h)


def test_cupy_zero_d_result_is_a_cupy_array():
    a = cp.linspace(0.5, 2.0, 5)
    r = gettpy.einsum("i,i", a, a)
    assert isinstance(r, cp.ndarray) and r.ndim == 0
    np.testing.assert_allclose(float(r), float(np.dot(cp.asnumpy(a), cp.asnumpy(a))), rtol=1e-12)


@pytest.mark.parametrize("order,c,f", [("K", True, False), ("C", True, False), ("F", False, True),
                                       ("A", False, True)])
def test_cupy_order(order, c, f):
    ha, hb = np.asfortranarray(np.linspace(0, 1, 30).reshape(5, 6)), np.asfortranarray(np.ones((6, 4)))
    r = gettpy.einsum("ij,jk->ik", cp.asarray(ha, order="F"), cp.asarray(hb, order="F"), order=order)
    assert (bool(r.flags.c_contiguous), bool(r.flags.f_contiguous)) == (c, f)
    np.testing.assert_allclose(cp.asnumpy(r), ha @ hb, rtol=1e-12)


def test_cupy_out_receives_dtype_result():
    ha, hb = np.linspace(0, 1, 12).reshape(3, 4), np.linspace(1, 2, 4)
    out = cp.zeros(3, cp.float32)
    r = gettpy.einsum("ij,j->i", cp.asarray(ha), cp.asarray(hb), out=out, dtype=np.float64, casting="same_kind")
    assert r is out
    np.testing.assert_allclose(cp.asnumpy(out), (ha @ hb).astype(np.float32), rtol=1e-6)


def test_cupy_pad_matches_cpu_pad():
    h = np.arange(1.0, 16.0).reshape(3, 5)[:, ::2]
    got = gettpy.pad(cp.asarray(h), (2, 4))
    np.testing.assert_array_equal(cp.asnumpy(got), gettpy.pad(h, (2, 4)))
    np.testing.assert_array_equal(cp.asnumpy(gettpy.unpad(got, h.shape)), h)


@pytest.mark.parametrize("subscripts,values", [("i->", [np.inf + 0j, 1 + 1j]), ("ij->j", [[np.nan + 0j, 2j], [1, 1j]])])
def test_cupy_one_operand_complex_sum_keeps_inf_and_nan_apart(subscripts, values):
    h = np.asarray(values, dtype=np.complex64)
    got = cp.asnumpy(gettpy.einsum(subscripts, cp.asarray(h)))
    want = np.einsum(subscripts, h)
    np.testing.assert_array_equal(got.real, np.real(want))
    np.testing.assert_array_equal(got.imag, np.imag(want))


def test_cupy_out_broadcasts_extent_one_labels():
    h = [np.random.default_rng(2).standard_normal(s) for s in ((1, 3), (3, 4))]
    out = cp.zeros((2, 4))
    assert gettpy.einsum("ij,jk->ik", *map(cp.asarray, h), out=out) is out
    np.testing.assert_allclose(cp.asnumpy(out), np.einsum("ij,jk->ik", *h, out=np.zeros((2, 4))), rtol=1e-12)


def test_cupy_out_takes_exact_results_of_numpy_optimized_path():
    """numpy's optimized path (optimize='optimal') into an `out` casting='safe' refuses: on CuPy arrays gettpy
    casts the float result into an int64 `out` where every value survives (numpy's values), and refuses with the
    element named, `out` untouched, where one would change (numpy would truncate 6.5 to 6)."""
    ha, hb = np.full((3, 4), 0.5), np.full(4, 2.0)
    out = cp.zeros(3, np.int64)
    assert gettpy.einsum("ij,j->i", cp.asarray(ha), cp.asarray(hb), out=out, optimize="optimal") is out
    want = np.zeros(3, np.int64)
    np.einsum("ij,j->i", ha, hb, out=want, optimize="optimal")
    np.testing.assert_array_equal(cp.asnumpy(out), want)
    ha[2, 0] = 1.75  # (row 2: 6.5)
    out = cp.full(3, 5, np.int64)
    with pytest.raises(TypeError, match=r"at \(2,\) is 6\.5"):
        gettpy.einsum("ij,j->i", cp.asarray(ha), cp.asarray(hb), out=out, optimize="optimal")
    np.testing.assert_array_equal(cp.asnumpy(out), [5, 5, 5])
