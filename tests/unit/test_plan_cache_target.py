"""The plan cache keys on the target device: a device with another SM count gets its own schedule."""
from __future__ import annotations

from dataclasses import replace

from gettpy.plan import cache
from gettpy.plan.problem import ContractionProblem, TensorInfo
from gettpy.plan.schedule import make_schedule
from gettpy.plan.target import DEFAULT_TARGET


def _problem() -> ContractionProblem:
    ext = {"i": 61, "j": 53, "k": 1_700_003}  # long K, small M*N: the split depends on the SM count
    def info(name, modes):
        st, acc = [], 1
        for m in reversed(modes):
            st.append(acc)
            acc *= ext[m]
        return TensorInfo(name, tuple(modes), tuple(reversed(st)), "f32")
    return ContractionProblem(info("A", "ik"), info("B", "kj"), None, info("D", "ij"), tuple(sorted(ext.items())))


def test_schedule_follows_the_target(monkeypatch):
    small = replace(DEFAULT_TARGET, name="small", sm_count=8)
    p = _problem()
    cache.clear_plan_cache()
    monkeypatch.setattr(cache, "executor_target", lambda backend: DEFAULT_TARGET)
    big = cache.cached_schedule(p, "cupy")
    monkeypatch.setattr(cache, "executor_target", lambda backend: small)
    few = cache.cached_schedule(p, "cupy")
    cache.clear_plan_cache()
    # each cached schedule is the one make_schedule builds for its target, not the other's
    assert big == make_schedule(p.canonical(), f64_cores=cache._f64_cores("cupy"), target=DEFAULT_TARGET)
    assert few == make_schedule(p.canonical(), f64_cores=cache._f64_cores("cupy"), target=small)
    assert big != few
