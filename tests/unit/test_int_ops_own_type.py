"""An integer input's fused op is held in the input's own type, wrapped as numpy's ``op(a)`` wraps, whatever the
other input's type (einsum, its dtype= and out=, and the plan API alike), against numpy on the op's value in that
type; an integer input of a floating contraction keeps its op's exact value (the documented rule)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import gettpy

TWINS = {"square": np.square, "neg": np.negative, "abs": np.abs, "relu": lambda x: np.maximum(x, x.dtype.type(0))}
NARROW = [np.int8, np.uint8, np.int16, np.int32]


def _values(dtype, rng) -> np.ndarray:
    info = np.iinfo(dtype)
    edge = [info.min, info.max, info.min + 1, 0, 1, info.max // 2 + 3]
    return np.concatenate([np.array(edge, dtype=dtype), rng.integers(info.min, info.max, 10, dtype=dtype,
                                                                      endpoint=True)])


@pytest.mark.parametrize("dtype,wide,op", [(d, w, op) for d, w, op in itertools.product(
    NARROW, [np.int64, np.int32], TWINS) if np.dtype(w).itemsize > np.dtype(d).itemsize])
def test_integer_input_ops_wrap_in_the_inputs_own_type(dtype, wide, op):
    rng = np.random.default_rng(7)
    x = _values(dtype, rng)
    y = rng.integers(-3, 4, x.size).astype(wide)
    want = np.einsum("i,i->", TWINS[op](x).astype(np.int64), y.astype(np.int64)).astype(np.result_type(dtype, wide))
    assert gettpy.einsum("i,i->", x, y, ops=[op, None]) == want
    assert gettpy.einsum("i,i->", y, x, ops=[None, op]) == want
    out = np.zeros((), np.result_type(dtype, wide))
    gettpy.einsum("i,i->", x, y, ops=[op, None], out=out)
    assert out == want
    one = np.einsum("i->", TWINS[op](x).astype(np.int64)).astype(np.int64)
    assert gettpy.einsum("i->", x, ops=[op], dtype=np.int64) == one
    desc = gettpy.TensorDescriptor
    d = np.zeros((), np.result_type(dtype, wide))
    p = gettpy.plan(desc.of(x, op), "i", desc.of(y), "i", desc.of(d), "")
    gettpy.contract(p, 1, x, y, 0, None, d)
    assert d == want


def test_an_integer_input_of_a_floating_contraction_keeps_its_ops_exact_value():
    x = np.int8([100, 3])
    assert gettpy.einsum("i,i->", x, np.float64([1, 1]), ops=["square", None]) == 10009.0
