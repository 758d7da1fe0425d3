"""einsum's dtype= on integer inputs that widen to it (gettpy/dtypes.py `resolve`): the inputs keep their own type
(so 8-bit inputs reach the int8 tile) and the result is numpy's, bit for bit, including sums that wrap in dtype='s
bits; narrowing casts still happen first, as numpy's."""
from __future__ import annotations

import numpy as np
import pytest

import gettpy
from gettpy.dtypes import resolve


@pytest.mark.parametrize("ins,dtype,out,casting,inputs", [
    (["int8", "int8"], "int32", None, "safe", "i8"),
    (["uint8", "uint8"], "uint32", None, "safe", "u8"),
    (["int8", "uint8"], "int32", None, "safe", "i16"),     # (numpy's promotion of the pair, then widened)
    (["int8", "int8"], "int64", None, "safe", "i8"),
    (["int8", "int8"], "int32", "int64", "unsafe", "i8"),   # (computed in int32, then cast into out)
    (["int16", "int16"], "int8", None, "unsafe", "i8"),     # (narrowing: cast first)
    (["int8", "int8"], "float32", None, "safe", "f32"),     # (another kind: cast first)
    (["bool", "bool"], "int32", None, "safe", "i32"),       # (bool is cast: numpy counts through int32)
])
def test_resolution(ins, dtype, out, casting, inputs):
    assert resolve(ins, dtype, out, casting).inputs == inputs


CASES = [  # (subscripts, shapes, input dtype, dtype=, out dtype, fill)
    ("ik,kj->ij", ((37, 3785), (3785, 29)), np.int8, np.int32, None, None),
    ("ik,kj->ij", ((37, 3785), (3785, 29)), np.int8, np.int16, None, 127),     # (wraps at 16 bits)
    ("i,i->", ((140_001,), (140_001,)), np.int8, np.int32, None, 127),          # (wraps at 32 bits)
    ("i,i->", ((140_001,), (140_001,)), np.int8, np.int64, None, -128),
    ("ik,kj->ij", ((37, 301), (301, 29)), np.uint8, np.uint32, None, 255),
    ("ik,kj->ij", ((37, 301), (301, 29)), np.int8, np.int32, np.int64, None),
    ("bik,bkj->bij", ((3, 17, 45), (3, 45, 19)), np.int16, np.int64, None, None),
]


@pytest.mark.parametrize("subs,shapes,in_dt,dtype,out_dt,fill", CASES)
def test_einsum_matches_numpy_bit_for_bit(subs, shapes, in_dt, dtype, out_dt, fill):
    rng = np.random.default_rng(1)
    info = np.iinfo(in_dt)
    xs = [rng.integers(info.min, info.max, s, dtype=in_dt, endpoint=True) if fill is None else np.full(s, fill, in_dt)
          for s in shapes]
    kw = {"dtype": dtype}
    if out_dt is not None:
        kw.update(casting="unsafe")
    ref = np.einsum(subs, *xs, out=None if out_dt is None else np.empty(np.einsum(subs, *xs).shape, out_dt), **kw)
    out = None if out_dt is None else np.empty(ref.shape, out_dt)
    got = gettpy.einsum(subs, *xs, out=out, **kw)
    assert np.asarray(got).dtype == np.asarray(ref).dtype
    assert np.array_equal(np.asarray(got), np.asarray(ref))
