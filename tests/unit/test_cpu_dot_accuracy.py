"""Stacks of long dot products on the CPU executor: float32 sums in blocks added pairwise (backends/cpu.py
`_dots`), held to float32's accuracy against numpy float64 where numpy's own einsum, summing in sequence, loses
digits as K grows; integers stay exact (wrapping as numpy's)."""
from __future__ import annotations

import numpy as np
import pytest

import gettpy


@pytest.mark.parametrize("K", [4097, 2_000_003])
def test_float32_batched_dots_keep_float32_accuracy(K):
    rng = np.random.default_rng(K)
    a = rng.random((3, K)).astype(np.float32)
    b = rng.random((3, K)).astype(np.float32)
    ref = np.einsum("bk,bk->b", a.astype(np.float64), b.astype(np.float64))
    for x, y in ((a, b), (a[:, ::-1], b[:, ::-1]), (np.asfortranarray(a), b)):
        got = gettpy.einsum("bk,bk->b", x, y)
        assert got.dtype == np.float32
        assert np.max(np.abs(got - ref) / ref) < 1e-6  # (reversing both keeps every product)


def test_broadcast_dots_in_blocks():
    rng = np.random.default_rng(2)
    a = np.broadcast_to(rng.random((5, 1, 30011)).astype(np.float32), (5, 4, 30011))
    b = np.broadcast_to(rng.random((1, 4, 30011)).astype(np.float32), (5, 4, 30011))
    got = gettpy.einsum("xyk,xyk->xy", a, b)
    ref = np.einsum("xyk,xyk->xy", a.astype(np.float64), b.astype(np.float64))
    assert np.max(np.abs(got - ref) / ref) < 1e-6


def test_integer_dots_exact_and_wrapping():
    rng = np.random.default_rng(4)
    a = rng.integers(-(2**31), 2**31, (2, 10007), dtype=np.int64)
    b = rng.integers(-(2**31), 2**31, (2, 10007), dtype=np.int64)
    got = gettpy.einsum("bk,bk->b", a, b)
    assert got.tolist() == np.einsum("bk,bk->b", a, b).tolist()  # (both wrap modulo 2**64)
