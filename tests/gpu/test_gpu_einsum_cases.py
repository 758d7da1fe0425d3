"""einsum on CuPy arrays through the front end (ellipsis, diagonals, >2 operands, empty sums), each result
checked against np.einsum in float64 on the same values (skipped without a device)."""
from __future__ import annotations

import numpy as np
import pytest
from harness import assert_close, dense_problem, extents_of, fresh_caches, nonzero

import gettpy
from gettpy.plan.heuristic import SIMT_OUTER_TILE
from gettpy.plan.schedule import make_schedule
from gettpy.plan.tiles import kernel_spec

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


@pytest.mark.gpu
@pytest.mark.parametrize("subscripts,shapes,order", [
    ("i,j->ij", [(1001,), (517,)], "C"),
    ("bi,bj->bij", [(5, 301), (5, 259)], "F"),
    ("ij,kl->ijkl", [(13, 29), (7, 41)], "C"),
])
def test_gpu_f32_outer_products(rng, subscripts, shapes, order, monkeypatch):
    """f32 outer products (K = 1) on heuristic.SIMT_OUTER_TILE (128 x 64, bk 8), ragged at both edges, in both
    memory orders: every element equal to numpy's f32 product. (The direct kernel, which the planner prefers for
    outer products, is kept out: plan/direct.py; its own tests are test_gpu_direct.py's.)"""
    import cupy

    from gettpy.plan import direct

    monkeypatch.setattr(direct, "DIRECT_GAIN", 0.0)
    fresh_caches()
    xs = [np.asarray(x.astype(np.float32), order=order) for x in _inputs(rng, shapes)]
    got = cupy.asnumpy(gettpy.einsum(subscripts, *[cupy.asarray(x, order=order) for x in xs]))
    ref = np.einsum(subscripts, *xs)  # (one product per element: exact in f32 as on the device)
    assert got.dtype == np.float32 and np.array_equal(got, ref)
    s = make_schedule(dense_problem(subscripts, extents_of(subscripts, shapes), "f32", order))
    t = kernel_spec(s.core, False).tile
    assert s.direct is None and (t.bm, t.bn, t.bk, t.tm, t.tn) == (SIMT_OUTER_TILE.bm, SIMT_OUTER_TILE.bn, 8, 8, 4), t
    fresh_caches()
