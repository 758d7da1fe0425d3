"""Regression tests: explicit paths in opt_einsum's spelling (a list of tuples, no "einsum_path") are
checked as numpy's spelling is: a repeated operand or a path that leaves operands silently gave a wrong
number, a position out of range a raw IndexError."""
import numpy as np
import pytest

import gettpy
from gettpy.errors import PathError

_X = np.arange(4.0).reshape(2, 2) + 1
_OPS = (_X, 2 * _X, 3 * _X)
_REF = np.einsum("ij,jk,kl->", *_OPS)


@pytest.mark.parametrize("path", [[(0, 0), (0, 1)], [(0, 1)], [(0, 1), (0, 1), (0, 1)], [(0, 5), (0, 1)],
                                  ((0, 0), (0, 1))])  # (an empty path is numpy's TypeError: test_review_tensordot)
def test_bad_opt_einsum_path_is_a_path_error(path):
    with pytest.raises(PathError) as e:
        gettpy.einsum("ij,jk,kl->", *_OPS, optimize=path)
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize("path", [[(0, 1), (0, 1)], [(1, 2), (0, 1)], [(0, 1, 2)], [[0, 1], [0, 1]],
                                  [(0,), (0, 1), (0, 1)], ((0, 2), (0, 1))])
def test_good_opt_einsum_path_matches_numpy(path):
    np.testing.assert_allclose(gettpy.einsum("ij,jk,kl->", *_OPS, optimize=path), _REF, rtol=1e-12)


def test_two_operand_path_is_checked_too():
    with pytest.raises(PathError):
        gettpy.einsum("ij,jk->", _X, _X, optimize=[(0, 5)])
    np.testing.assert_allclose(gettpy.einsum("ij,jk->", _X, _X, optimize=[(0, 1)]), np.einsum("ij,jk->", _X, _X))


def test_numpy_memory_limit_pair_is_not_a_path():
    np.testing.assert_allclose(gettpy.einsum("ij,jk,kl->", *_OPS, optimize=("greedy", 1e9)), _REF, rtol=1e-12)


def test_dask_opt_einsum_path_is_checked():
    da = pytest.importorskip("dask.array")
    dask = pytest.importorskip("dask")
    import gettpy.dask as gd

    arrays = [da.from_array(v, chunks=1) for v in _OPS]
    with dask.config.set(scheduler="synchronous"):
        with pytest.raises(PathError):
            gd.einsum("ij,jk,kl->", *arrays, optimize=[(0, 0), (0, 1)]).compute()
        np.testing.assert_allclose(gd.einsum("ij,jk,kl->", *arrays, optimize=[(1, 2), (0, 1)]).compute(), _REF)
