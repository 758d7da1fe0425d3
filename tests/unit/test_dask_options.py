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


@pytest.mark.parametrize("kw,err", [({"stream": [0.5]}, ArgumentError), ({"stream": "0"}, ArgumentError),
                                    ({"split_every": 1}, OptionError), ({"split_every": 0}, OptionError),
                                    ({"split_every": True}, ArgumentError), ({"split_every": 2.0}, ArgumentError)])
def test_stream_and_split_every(kw, err):
    with pytest.raises(err):
        gdask.einsum("ij,jk->ik", A, B, **kw)


def test_split_every_two_sums_every_chunk():
    da = pytest.importorskip("dask.array")
    x, y = da.from_array(A, chunks=(3, 1)), da.from_array(B, chunks=(1, 5))
    np.testing.assert_array_equal(np.asarray(gdask.einsum("ij,jk->ik", x, y, split_every=2)), A @ B)


@pytest.mark.parametrize("kw,err", [
    ({"headroom": float("nan"), "memory_bytes": 1e9}, OptionError), ({"memory_bytes": float("nan")}, OptionError),
    ({"headroom": -1, "memory_bytes": 1e9}, OptionError), ({"parallelism": 2.5, "memory_bytes": 1e9}, ArgumentError),
    ({"memory_bytes": "1e6"}, ArgumentError), ({"memory_bytes": -5}, OptionError),
])
def test_suggest_chunks_arguments(kw, err):
    with pytest.raises(err):
        gdask.suggest_chunks("ij,jk->ik", [(1000, 1000), (1000, 1000)], "float32", **kw)


def test_streaming_one_operand_of_numpy_ones_says_so():
    with pytest.raises(ArgumentError, match=r"operands \[0\] are streamed"):
        gdask.einsum("ij,jk->ik", A, B, stream=[0])
