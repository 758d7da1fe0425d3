"""einsum on CuPy arrays through the front end (ellipsis, diagonals, >2 operands, empty sums), each result
checked against np.einsum in float64 on the same values (skipped without a device)."""
from __future__ import annotations

import numpy as np
import pytest
from harness import assert_close, nonzero

import gettpy

# (a few of tests/unit/test_einsum_cases.py's CPU cases: id, subscripts, operand shapes)
GPU_CASES = [
    ("matmul", "ij,jk->ik", [(3, 4), (4, 5)]),
    ("batch_middle", "ibj,jbk->bik", [(3, 2, 4), (4, 2, 5)]),
    ("diagonal_contracted", "iij,jk->ik", [(3, 3, 4), (4, 5)]),
    ("reduce_and_permute", "ijk->ki", [(2, 3, 4)]),
    ("ellipsis_broadcast_size1", "...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("zero_k", "ij,jk->ik", [(3, 0), (0, 4)]),
    ("chain3", "ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]),
    ("five_ring", "ab,bc,cd,da,ae->e", [(2, 3), (3, 4), (4, 2), (2, 2), (2, 5)]),
]


def _inputs(rng, shapes, dtype=np.float64):
    return [nonzero(rng, s, dtype) for s in shapes]


def _check(got, ref, dtype):
    assert_close(got, ref, dtype)
    assert np.asarray(got).dtype == np.dtype(dtype), f"result dtype {np.asarray(got).dtype}, expected {dtype}"


# --- the same cases on a GPU, where there is one (skipped otherwise: see conftest.py)


@pytest.mark.gpu
@pytest.mark.parametrize("subscripts,shapes", [pytest.param(s, sh, id=i) for i, s, sh in GPU_CASES])
def test_gpu_matches_numpy(rng, subscripts, shapes):
    import cupy

    xs = _inputs(rng, shapes)
    got = gettpy.einsum(subscripts, *[cupy.asarray(x) for x in xs])
    assert isinstance(got, cupy.ndarray)
    _check(cupy.asnumpy(got), np.einsum(subscripts, *xs), np.float64)
