"""An input's op(x) held in the input's own type on the GPU as on the CPU executor (gettpy.ops): a float16 op past
the type's range is inf in both, fused into the loads and applied by a pack, against numpy's own `op(a)`."""
from __future__ import annotations

import numpy as np
import pytest

import gettpy

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("step", [1, 2])  # (2: A read with no stride-1 run, which the schedule may pack)
def test_float16_square_past_the_range(step):
    import cupy

    rng = np.random.default_rng(11)
    a = rng.uniform(1, 3, (512, 640 * step)).astype(np.float16)
    a[::7] = 300  # (square 90000: past float16's 65504)
    b = rng.uniform(0.1, 1, (640, 384)).astype(np.float16)  # (positive: inf rows, not inf - inf)
    da = cupy.asarray(a)[:, ::step]
    out = cupy.full((512, 384), cupy.nan, dtype=cupy.float32)
    gettpy.einsum("ik,kj->ij", da, cupy.asarray(b), ops=["square", None], out=out)
    with np.errstate(over="ignore", invalid="ignore"):
        ref = np.square(a[:, ::step]).astype(np.float64) @ b.astype(np.float64)
    got = cupy.asnumpy(out)
    assert np.array_equal(np.isinf(got), np.isinf(ref)) and np.isinf(ref[::7]).all()
    fin = np.isfinite(ref)
    assert np.max(np.abs(got[fin] - ref[fin])) <= 1e-5 * np.max(np.abs(ref[fin]))
