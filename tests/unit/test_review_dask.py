"""Regression tests: gettpy.dask.einsum's explicit paths and error kinds (found in review)."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import gettpy.dask as gd  # noqa: E402
from gettpy.errors import PathError  # noqa: E402


@pytest.fixture(autouse=True)
def _sync():
    with dask.config.set(scheduler="synchronous"):
        yield


def _ops():
    x = np.arange(4.0).reshape(2, 2) + 1
    return x, 2 * x, 3 * x


@pytest.mark.parametrize("path", [
    ["einsum_path", (0, 0), (0, 1)],      # an operand named twice in one step
    ["einsum_path", (0, 1)],              # operands left uncontracted
    ["einsum_path", (0, 5), (0, 1)],      # an operand that does not exist
    ["einsum_path", (0, 1), (0, 1), (0, 1)],
])
def test_bad_explicit_path_is_a_path_error(path):
    x, y, z = _ops()
    with pytest.raises(PathError) as e:
        gd.einsum("ij,jk,kl->", *(da.from_array(v, chunks=1) for v in (x, y, z)), optimize=path).compute()
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize("path", [["einsum_path", (0, 1), (0, 1)], ["einsum_path", (1, 2), (0, 1)],
                                  ["einsum_path", (0, 1, 2)]])
def test_explicit_path_matches_numpy(path):
    x, y, z = _ops()
    got = gd.einsum("ij,jk,kl->il", *(da.from_array(v, chunks=1) for v in (x, y, z)), optimize=path).compute()
    np.testing.assert_allclose(got, np.einsum("ij,jk,kl->il", x, y, z), rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda: gd.einsum("ij->", [[1.0]]),
    lambda: gd.einsum("ij->", da.ones((2, 2)), out="s"),
    lambda: gd.einsum("ij->", da.ones((2, 2)), out=da.ones(())),
])
def test_argument_errors_are_type_errors(call):
    with pytest.raises(TypeError):
        call()


def test_suggest_chunks_without_budget_is_a_value_error():
    with pytest.raises(ValueError):
        gd.suggest_chunks("ij,jk->ik", [(4, 4), (4, 4)], np.float32, memory_bytes=0)
