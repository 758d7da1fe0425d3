"""Regression tests: gettpy.tensordot refuses repeated axes as numpy does (it summed a diagonal instead)."""
import numpy as np
import pytest

import gettpy


@pytest.mark.parametrize("axes", [([0, 0], [0, 1]), ([0, 1], [0, 0]), ([1, 1], [0, 1]), ([0, -2], [0, 1])])
def test_repeated_axes_raise_like_numpy(axes):
    a, b = np.arange(4.0).reshape(2, 2), np.arange(8.0).reshape(2, 2, 2)
    with pytest.raises(ValueError):
        np.tensordot(a, b, axes)
    with pytest.raises(ValueError):
        gettpy.tensordot(a, b, axes)


@pytest.mark.parametrize("axes", [([0, 1], [0, 1]), ([1, 0], [0, 1]), ([-1], [2]), 2, 0])
def test_distinct_axes_match_numpy(axes):
    a, b = np.arange(4.0).reshape(2, 2), np.arange(8.0).reshape(2, 2, 2)
    np.testing.assert_allclose(gettpy.tensordot(a, b, axes), np.tensordot(a, b, axes), rtol=1e-12)


def test_too_many_dimensions_is_a_value_error():
    a = np.ones((1,) * 30)
    with pytest.raises(ValueError):
        gettpy.tensordot(a, a, 0)


def test_contract_expression_takes_lists():
    # nested lists are operands as in einsum (a raw AttributeError escaped)
    expr = gettpy.contract_expression("ij,jk->ik", (2, 2), (2, 2))
    a = [[1.0, 2.0], [3.0, 4.0]]
    np.testing.assert_allclose(expr(a, np.eye(2) * 2), np.array(a) * 2)
    with pytest.raises(ValueError):
        expr([[1.0, 2.0]], np.eye(2))


def test_a_negative_axes_count_is_an_outer_product_as_numpys():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    for n in (-1, -3):
        np.testing.assert_allclose(gettpy.tensordot(a, b, n), np.tensordot(a, b, n), rtol=1e-12)


def test_an_empty_explicit_path_is_a_type_error_as_numpys():
    a = np.ones((2, 3))
    with pytest.raises(TypeError, match="empty path"):
        gettpy.einsum("ij,jk->ik", a, a.T, optimize=[])
