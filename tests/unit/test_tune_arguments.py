"""gettpy.tune's arguments checked before any run: counts as integers of at least 1 (a TypeError or ValueError
naming the argument), and an `out` sharing memory with an input refused (every run would read the last one's
result); a valid call still tunes to numpy's result."""
from __future__ import annotations

import numpy as np
import pytest

import gettpy
from gettpy.errors import ArgumentError, OptionError


@pytest.fixture(autouse=True)
def _cache(monkeypatch, tmp_path):
    monkeypatch.setenv("GETTPY_CACHE_DIR", str(tmp_path))


A, B = np.arange(20.0).reshape(4, 5), np.arange(15.0).reshape(5, 3)


@pytest.mark.parametrize("kw,err,name", [
    ({"reps": 0}, OptionError, "reps"), ({"samples": 0}, OptionError, "samples"), ({"top": -1}, OptionError, "top"),
    ({"samples": 1.5}, ArgumentError, "samples"), ({"top": True}, ArgumentError, "top"),
    ({"seed": "x"}, ArgumentError, "seed"), ({"reps": None}, ArgumentError, "reps"),
])
def test_counts(kw, err, name):
    with pytest.raises(err, match=name):
        gettpy.tune("ij,jk->ik", A, B, **kw)


def test_out_sharing_an_input_is_refused_and_inputs_untouched():
    a = np.arange(16.0).reshape(4, 4)
    keep = a.copy()
    with pytest.raises(OptionError, match="shares memory with a"):
        gettpy.tune("ij,jk->ik", a, np.eye(4), out=a)
    assert np.array_equal(a, keep)


def test_valid_call_tunes_to_numpys_result():
    out = np.zeros((4, 3))
    trials = gettpy.tune("ij,jk->ik", A, B, out=out, samples=4, top=2, reps=1)
    assert trials[0].ok and np.array_equal(out, A @ B)
