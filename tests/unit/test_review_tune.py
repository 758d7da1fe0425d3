"""Regression test: gettpy.tune takes nested lists as einsum does (a raw AttributeError escaped)."""
import numpy as np

import gettpy
from gettpy.plan import cache as plan_cache


def test_tune_takes_lists(tmp_path, monkeypatch):
    monkeypatch.setenv("GETTPY_CACHE_DIR", str(tmp_path))
    a = [[1.0, 2.0], [3.0, 4.0]]
    b = np.arange(4.0).reshape(2, 2)
    try:
        trials = gettpy.tune("ij,jk->ik", a, b, samples=2, top=1, reps=1)
        assert trials and trials[0].ok
        np.testing.assert_allclose(gettpy.einsum("ij,jk->ik", a, b), np.array(a) @ b)
    finally:  # (the tuned candidate is this process's: leave other tests the heuristic plans)
        plan_cache._TUNED.clear()
        plan_cache.clear_plan_cache()
