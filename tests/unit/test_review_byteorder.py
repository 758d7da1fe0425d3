"""Regression tests: byte-swapped operands (numpy's non-native byte order) are contracted as numpy does
(they were refused as an unsupported dtype); views of them stay views."""
import numpy as np
import pytest

import gettpy

_SWAPPED = [">f8", ">f4", ">c16", ">i4", ">u2"] if np.little_endian else ["<f8", "<f4", "<c16", "<i4", "<u2"]


@pytest.mark.parametrize("dt", _SWAPPED)
@pytest.mark.parametrize("sub", ["ij,jk->ik", "ij->i", "ij,jk", "ii->"])
def test_swapped_operands_match_numpy(dt, sub):
    a = (np.arange(9) % 5).reshape(3, 3).astype(dt)
    b = (np.arange(9) % 4).reshape(3, 3).astype(np.dtype(dt).newbyteorder("="))
    ops = (a, b) if "," in sub else (a,)
    want = np.einsum(sub, *ops)
    got = gettpy.einsum(sub, *ops)
    assert np.asarray(got).dtype == np.asarray(want).dtype.newbyteorder("=")
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_swapped_view_stays_a_view():
    a = np.arange(4.0).reshape(2, 2).astype(_SWAPPED[0])
    v = gettpy.einsum("ij->ji", a)
    v[0, 1] = 7.0
    assert a[1, 0] == 7.0
