"""GPU checks of the zero-filled k-major packs of memory-bound GEMMs with misaligned k rows (plan/align.py) and
of the realigning padded row copy they run on (gettpy.kernels.realign): against numpy (the copy bit for bit,
einsum in float64), on shapes that are in no benchmark (odd rows, views, negative strides, both orders)."""
from __future__ import annotations

import numpy as np
import pytest
from harness import dense_problem

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("dtype", [np.uint8, np.float16, np.float32, np.float64])
@pytest.mark.parametrize("rows,k,step,flip", [(37, 1001, 1, False), (5, 77, 3, False), (64, 4099, 2, True),
                                              (1, 9, 1, False), (3, 1, 1, False)])
def test_realign_copy_matches_numpy(dtype, rows, k, step, flip):
    """Each padded row equals the source row and zeros after it, for rows at every misalignment (odd lengths,
    every `step`-th row of a larger array, the rows in reverse order, a view starting one element in)."""
    import cupy

    from gettpy.kernels.realign import realign_pack

    rng = np.random.default_rng(11)
    item = np.dtype(dtype).itemsize
    base = (rng.integers(1, 200, size=(rows * step, k + 1)).astype(dtype))
    src = cupy.asarray(base)[::step, 1:]  # (starts one element in: misaligned from the first row on)
    want = base[::step, 1:]
    if flip:
        src, want = src[::-1], want[::-1]
    kp = -(-k * item // 16) * 16 // item
    got = realign_pack(src, kp)
    assert got is not None and got.shape == (rows, kp) and got.flags.c_contiguous
    ref = np.zeros((rows, kp), dtype)
    ref[:, :k] = want
    np.testing.assert_array_equal(cupy.asnumpy(got), ref)


CASES = [  # (einsum, (m, n), K, order): the planner pads the k rows of each (asserted below); 4-byte elements (odd
    #        2-byte rows are read realigned in place instead: tests/gpu/test_realign_gpu.py)
    ("mk,nk->mn", (90, 110), 300_001, "C"),
    ("km,kn->mn", (110, 90), 250_007, "F"),
    ("mk,nk->mn", (90, 110), 200_003, "C"),
]


@pytest.mark.parametrize("eq,mn,k,order", CASES)
def test_padded_memory_bound_einsum(gett_tiles_only, eq, mn, k, order):
    import cupy

    import gettpy
    from gettpy.plan.schedule import make_schedule

    ext = dict(m=mn[0], n=mn[1], k=k)
    lhs = eq.split("->")[0].split(",")
    assert make_schedule(dense_problem(eq, ext, "f32", order)).pad_ext  # (the case exercises the padded schedule)
    rng = np.random.default_rng(3)
    host = [rng.standard_normal(tuple(ext[c] for c in x)).astype(np.float32) for x in lhs]
    dev = [cupy.asarray(x, order=order) for x in host]
    got = cupy.asnumpy(gettpy.einsum(eq, *dev)).astype(np.float64)
    ref = np.einsum(eq, *[x.astype(np.float64) for x in host], optimize=True)
    scale = np.einsum(eq, *[np.abs(x.astype(np.float64)) for x in host], optimize=True)
    assert np.all(np.abs(got - ref) <= 3e-3 * scale)
