"""gettpy.dask.einsum into an `out` of another type: the result computed in the operands' type (or dtype=) and cast
once as it is stored, as numpy.einsum and gettpy.einsum compute it, whatever the chunking."""
from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
gdask = importlib.import_module("gettpy.dask")


@pytest.mark.parametrize("chunks", [None, (1, 1)])
@pytest.mark.parametrize("a,b,out_dtype,casting", [
    ([[0.6, 0.6]], [[1.0], [1.0]], np.int64, "unsafe"),  # (0.6 + 0.6, then 1: not 0 + 0)
    ([[1e8, 1.0, -1e8]], [[1.0], [1.0], [1.0]], np.float32, "same_kind"),  # (the sum in float64: 1, not 0)
    ([[1 + 2j, 3 - 1j]], [[1j], [2.0]], np.float64, "unsafe"),  # (4 - 1j, its real part: not 6)
])
def test_out_of_another_type(a, b, out_dtype, casting, chunks):
    a, b = np.array(a), np.array(b)
    x, y = (a, b) if chunks is None else (da.from_array(a, chunks=chunks), da.from_array(b, chunks=chunks))
    got, want = np.zeros((1, 1), out_dtype), np.zeros((1, 1), out_dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (numpy's ComplexWarning of the complex case)
        gdask.einsum("ij,jk->ik", x, y, out=got, casting=casting)
        np.einsum("ij,jk->ik", a, b, out=want, casting=casting)
    assert got.tolist() == want.tolist()


def test_chunked_product_into_integers_and_with_dtype():
    rng = np.random.default_rng(0)
    a, b = rng.random((30, 40)), rng.random((40, 20))
    x, y = da.from_array(a, chunks=(7, 9)), da.from_array(b, chunks=(9, 6))
    got, want = np.zeros((30, 20), np.int64), np.zeros((30, 20), np.int64)
    gdask.einsum("ij,jk->ik", x, y, out=got, casting="unsafe")
    np.einsum("ij,jk->ik", a, b, out=want, casting="unsafe")
    assert np.array_equal(got, want)
    got32 = np.zeros((30, 20), np.float32)
    gdask.einsum("ij,jk->ik", x, y, out=got32, dtype=np.float64, casting="same_kind")
    assert np.max(np.abs(got32 - a @ b)) <= 1e-6 * np.max(np.abs(a @ b))
