"""A plan made where a GPU is present (the GPU's staged schedule) runs on numpy arrays with the CPU executor's
own schedule: the same values, without the GPU's stagings."""
from __future__ import annotations

import numpy as np

import gettpy
from gettpy import backends
from gettpy.plan import cache


def test_gpu_plan_on_numpy_runs_the_cpu_schedule(monkeypatch):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((5, 200_003))  # long odd K, small M*N: the GPU's schedule splits K
    b = rng.standard_normal((200_003, 3))
    d = np.zeros((5, 3))
    cache.clear_plan_cache()
    monkeypatch.setattr(cache, "_executor", lambda backend: backend or "cupy")  # planned as on a GPU machine
    p = gettpy.plan(gettpy.TensorDescriptor.of(a), "ik", gettpy.TensorDescriptor.of(b), "kj",
                    gettpy.TensorDescriptor.of(d), "ij")
    gpu_sched = p.plan
    assert gpu_sched.split_mode is not None or gpu_sched.staged  # (the GPU's schedule stages something)
    seen = []
    real = backends.execute

    def spy(name, schedule, *args, **kw):
        seen.append(schedule)
        return real(name, schedule, *args, **kw)

    monkeypatch.setattr(backends, "execute", spy)
    gettpy.contract(p, 1.0, a, b, 0.0, None, d)
    cache.clear_plan_cache()
    assert len(seen) == 1 and seen[0] is not gpu_sched
    assert seen[0].split_mode is None and not seen[0].staged
    np.testing.assert_allclose(d, a @ b, rtol=1e-10, atol=1e-10)
