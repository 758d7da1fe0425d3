"""GPU checks of the batch-led stagings (gettpy/plan/batch.py): outputs whose stride-1 mode is a batch mode
staged through a workspace and the tiled copy, batch-led inputs packed. gettpy.einsum on CuPy arrays, into an
output of the inputs' memory order, against numpy in float64, on shapes that are in no benchmark (odd sequence
lengths, head sizes of 72 and 88, batch counts of 6 and 21)."""
from __future__ import annotations

import importlib

import numpy as np
import pytest
from harness import dense_problem

pytestmark = pytest.mark.gpu

TOL = {np.float16: 3e-3, np.float32: 3e-5, np.float64: 1e-12}

# (einsum, extents, dtype, order, whether the shape is large enough to stage at the H100's L2 size)
CASES = [
    ("zhqd,zhkd->zhqk", {"z": 2, "h": 12, "q": 1031, "k": 1031, "d": 72}, np.float16, "F", True),
    ("zhqk,zhkd->zhqd", {"z": 6, "h": 16, "q": 1203, "k": 1203, "d": 88}, np.float16, "F", True),
    ("zqhd,zkhd->zhqk", {"z": 3, "h": 14, "q": 611, "k": 611, "d": 72}, np.float32, "F", True),
    ("mkb,knb->mnb", {"b": 21, "m": 613, "n": 577, "k": 301}, np.float64, "C", True),
    ("mkb,knb->mnb", {"b": 21, "m": 133, "n": 129, "k": 301}, np.float16, "C", False),
    ("zhqd,zhkd->zhqk", {"z": 2, "h": 12, "q": 301, "k": 287, "d": 72}, np.float16, "C", False),
]


def _run(eq, ext, dtype, order):
    import cupy

    import gettpy

    lhs, out = eq.split("->")
    rng = np.random.default_rng(3)
    host = [rng.standard_normal([ext[m] for m in t]).astype(dtype) for t in lhs.split(",")]
    host = [np.asfortranarray(x) if order == "F" else x for x in host]
    dev = [cupy.asarray(x, order=order) for x in host]
    d = cupy.empty([ext[m] for m in out], dtype=dtype, order=order)
    gettpy.einsum(eq, *dev, out=d)
    got = np.asarray(d.get(), np.float64)
    ref = np.einsum(eq, *[x.astype(np.float64) for x in host], optimize=True)
    scale = np.einsum(eq, *[np.abs(x.astype(np.float64)) for x in host], optimize=True)
    assert np.all(np.abs(got - ref) <= TOL[dtype] * np.maximum(scale, 1))


@pytest.mark.parametrize("eq,ext,dtype,order,staged", CASES)
def test_batch_led_einsum(eq, ext, dtype, order, staged):
    from gettpy.plan.cache import cached_schedule, clear_plan_cache

    p = dense_problem(eq, ext, np.dtype(dtype).name.replace("float", "f"), order)
    clear_plan_cache()
    assert (cached_schedule(p, "cupy").stage_d is not None) == staged
    _run(eq, ext, dtype, order)


@pytest.mark.parametrize("eq,ext,dtype,order,staged", CASES[4:])
def test_small_shapes_staged_on_gpu(eq, ext, dtype, order, staged, monkeypatch):
    """The small shapes with the L2 share set to nothing, so that they stage (and pack) too."""
    from dataclasses import replace

    from gettpy.plan.cache import clear_plan_cache

    cache = importlib.import_module("gettpy.plan.cache")
    target_of = cache.executor_target
    monkeypatch.setattr(cache, "executor_target", lambda backend: replace(target_of(backend), l2_bytes=0))
    clear_plan_cache()
    try:
        _run(eq, ext, dtype, order)
    finally:
        clear_plan_cache()
