"""tccg.scale's pieces that decide what it reports, on the CPU: the flop count, the operands it generates
(reproducible per block), and the sampled-block check that guards its larger-than-one-GPU contraction."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
scale = importlib.import_module("tccg.scale")
gdask = importlib.import_module("gettpy.dask")


def test_flops_count_every_mode_once():
    assert scale._flops("abcd,cdij->abij", [(3, 4, 5, 6), (5, 6, 7, 2)]) == 2 * 3 * 4 * 5 * 6 * 7 * 2
    assert scale._flops("zikj,zkl->zijl", [(2, 3, 4, 5), (2, 4, 6)]) == 2 * 2 * 3 * 4 * 5 * 6


def test_cases_split_the_output_only():
    for name, subs, shapes, chunks in scale.cases(False, 2):
        ins, out = subs.split("->")
        for term, shape, chunk in zip(ins.split(","), shapes, chunks, strict=True):
            for m, e, c in zip(term, shape, chunk, strict=True):
                assert c == e or m in out, f"{name}: contracted mode {m} split"


def test_operands_are_reproducible_and_in_range():
    x = scale._operand((10, 7), (4, 3), np.float64, 3, 0.5, False)
    a = x.compute(scheduler="sync")
    b = scale._operand((10, 7), (4, 3), np.float64, 3, 0.5, False).compute(scheduler="threads")
    np.testing.assert_array_equal(a, b)
    assert a.dtype == np.float64 and np.abs(a).max() <= 0.5 and np.unique(a).size == a.size
    assert scale._operand((10, 7), (4, 3), np.float32, 3, 0.5, False).compute(scheduler="sync").dtype == np.float32


def test_sample_check_catches_a_wrong_result():
    v = scale._operand((6, 6, 6, 6), (3, 3, 6, 6), np.float64, 1, 1.0, False)
    t = scale._operand((6, 6, 2, 2), (6, 6, 2, 2), np.float64, 2, 0.1, False)
    r = gdask.einsum("abcd,cdij->abij", v, t)
    ident = lambda x: x  # noqa: E731 - numpy chunks: already on the host
    assert scale._check_samples(r, v, t, ident) < 1e-14
    assert scale._check_samples(r * (1 + 1e-9), v, t, ident) > 1e-11  # above the benchmark's threshold
    wrong = gdask.einsum("abcd,dcij->abij", v, t)  # contracted modes swapped
    assert scale._check_samples(wrong, v, t, ident) > 1e-3
