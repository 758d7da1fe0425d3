"""gettpy.dask.einsum's numpy options validated as gettpy.einsum validates them (the same error types, before any
graph is built), and numpy's (strategy, memory limit) pair taken as a path strategy."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

import gettpy
from gettpy.errors import ArgumentError, OptionError, StrategyError

pytest.importorskip("dask.array")
gdask = importlib.import_module("gettpy.dask")

A, B, C = np.arange(12.0).reshape(3, 4), np.arange(20.0).reshape(4, 5), np.arange(10.0).reshape(5, 2)


@pytest.mark.parametrize("ops", [(A, B, C), (A, B)])
@pytest.mark.parametrize("optimize,err", [("nonsense", StrategyError), (3.5, ArgumentError)])
def test_bad_optimize_refused_as_einsum_refuses_it(ops, optimize, err):
    sub = "ij,jk,kl->il" if len(ops) == 3 else "ij,jk->ik"
    with pytest.raises(err):
        gettpy.einsum(sub, *ops, optimize=optimize)
    with pytest.raises(err):
        gdask.einsum(sub, *ops, optimize=optimize)


@pytest.mark.parametrize("optimize", [("greedy", 10), ("greedy", 1e9), ("optimal", 0), "dp", False])
def test_strategies_and_memory_limit_pairs(optimize):
    got = np.asarray(gdask.einsum("ij,jk,kl->il", A, B, C, optimize=optimize))
    np.testing.assert_array_equal(got, A @ B @ C)


@pytest.mark.parametrize("kw", [{"order": "W"}, {"casting": "bogus"}])
def test_bad_order_and_casting(kw):
    with pytest.raises(OptionError):
        gdask.einsum("ij,jk->ik", A, B, **kw)
