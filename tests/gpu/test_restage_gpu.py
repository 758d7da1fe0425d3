"""GPU checks of the traffic model's stagings (gettpy/plan/traffic.py): outputs staged through a dense workspace
and the tiled copy, inputs packed into the output's order, on odd-extent shapes in no benchmark. gettpy.einsum on
CuPy arrays against numpy in float64."""
from __future__ import annotations

import numpy as np
import pytest
from harness import RESTAGED, assert_close, dense_problem, nonzero, reference

pytestmark = pytest.mark.gpu

#: the same families at sizes of tens of MB (the permute kernel over many tiles, the core over many waves)
LARGE = [
    ("ecbfa,fd->abcde", {"a": 53, "b": 36, "c": 31, "d": 23, "e": 50, "f": 55}, "f16", "C"),
    ("efcad,bf->abcde", {"a": 42, "b": 25, "c": 32, "d": 28, "e": 51, "f": 32}, "f32", "F"),
    ("dbea,ec->abcd", {"a": 68, "b": 71, "c": 24, "d": 62, "e": 65}, "f16", "C"),
]


@pytest.mark.parametrize("eq,ext,dt,order", RESTAGED + LARGE)
def test_restaged_einsum(eq, ext, dt, order):
    import cupy

    import gettpy
    from gettpy.plan.cache import cached_schedule
    from gettpy.plan.schedule import planned_schedule

    p = dense_problem(eq, ext, dt, order)
    sched = cached_schedule(p, "gpu")
    assert sched.staged and sched != planned_schedule(p), "the traffic model kept the schedule as planned"
    rng = np.random.default_rng(11)
    dtype = np.float16 if dt == "f16" else np.float32
    lhs, out = eq.split("->")
    xs = [nonzero(rng, [ext[m] for m in t]).astype(dtype) for t in lhs.split(",")]
    xs = [np.asfortranarray(x) if order == "F" else x for x in xs]
    d = cupy.full([ext[m] for m in out], np.nan, dtype=dtype, order=order)
    got = gettpy.einsum(eq, *[cupy.asarray(x, order=order) for x in xs], out=d)
    assert got is d
    assert_close(d.get(), reference(eq, *xs), dtype)
