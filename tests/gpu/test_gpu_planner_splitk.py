"""GPU checks of the model-sized split-K with a tail (plan/splitk.py), the diagonal fold of long sums over tiny
outputs (plan/fold.py) and the zero-filled k-major packs of compute-bound GEMMs with an odd K
(Schedule.pad_ext): gettpy.einsum on CuPy arrays against numpy in float64, on shapes that are in no benchmark
(prime and odd extents, both memory orders, a strided view)."""
from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

TOL = {np.float16: 3e-3, np.float32: 3e-5, np.float64: 1e-12}

CASES = [
    ("ik,kj->ij", [(62, 200_003), (200_003, 55)]),
    ("k,k->", [(1_000_003,), (1_000_003,)]),  # (folded, with a tail)
    ("k,kj->j", [(500_009,), (500_009, 3)]),  # (folded)
    ("ik,kj->ij", [(17, 319_996), (319_996, 19)]),  # (a tail that splits again)
    ("ik,k->i", [(300, 100_003), (100_003,)]),
    ("akl,lkc->ac", [(29, 3, 40_009), (40_009, 3, 11)]),
    ("ik,kj->ij", [(1031, 843), (843, 1029)]),  # compute-bound, odd K: zero-filled packs
    ("aebf,dfce->abcd", [(45, 37, 43, 37), (41, 37, 47, 37)]),  # (the same over two k modes)
]


def _inputs(shapes, dtype, order, rng):
    import cupy

    out = []
    for shp in shapes:
        x = rng.standard_normal(shp).astype(dtype)
        out.append(np.asfortranarray(x) if order == "F" else x)
    return out, [cupy.asarray(x, order="F" if order == "F" else "C") for x in out]


@pytest.mark.parametrize("eq,shapes", CASES)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("order", ["C", "F"])
def test_split_and_padded_packs_on_gpu(eq, shapes, dtype, order):
    import gettpy

    rng = np.random.default_rng(11)
    host, dev = _inputs(shapes, dtype, order, rng)
    got = np.asarray(gettpy.einsum(eq, *dev).get(), np.float64)
    ref = np.einsum(eq, *[x.astype(np.float64) for x in host], optimize=True)
    scale = np.einsum(eq, *[np.abs(x.astype(np.float64)) for x in host], optimize=True)
    assert np.all(np.abs(got - ref) <= TOL[dtype] * np.maximum(scale, 1))


def test_split_tail_with_c_beta_op_and_view():
    """alpha, beta * C and an output op after the slices and the tail are summed; A a strided view."""
    import cupy

    import gettpy

    rng = np.random.default_rng(5)
    big = rng.standard_normal((12, 50_021)).astype(np.float32)
    a = big[::2]
    b = rng.standard_normal((50_021, 5)).astype(np.float32)
    c = rng.standard_normal((6, 5)).astype(np.float32)
    con = gettpy.Contraction("ik,kj->ij", cupy.asarray(big)[::2], cupy.asarray(b), c=cupy.asarray(c), op_out="relu")
    got = con.execute(alpha=0.5, beta=2.0).get()
    ref = np.maximum(0.5 * a.astype(np.float64) @ b.astype(np.float64) + 2.0 * c, 0)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-3)
