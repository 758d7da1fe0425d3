"""Parity and plan-API behaviours an adversarial pass of numpy's einsum semantics found: bytearray subscripts,
numpy's dtype strings, dtype= with out= under numpy's optimized path, compute types narrower than the operands,
bool alpha and beta, a Contraction with a diagonal, bools as pad sizes. numpy is the reference where it defines
one."""
from __future__ import annotations

import numpy as np
import pytest

import gettpy
from gettpy.errors import ArgumentError, DtypeError, SubscriptError

_R = np.random.default_rng(40)


def test_bytearray_subscripts_refused_as_numpy():
    a, b = np.ones((2, 3)), np.ones((3, 4))
    with pytest.raises(TypeError):
        np.einsum(bytearray(b"ij,jk->ik"), a, b)
    with pytest.raises(TypeError, match="str or bytes"):
        gettpy.einsum(bytearray(b"ij,jk->ik"), a, b)
    np.testing.assert_array_equal(gettpy.einsum(b"ij,jk->ik", a, b), a @ b)  # (bytes are taken)


@pytest.mark.parametrize("dtype,out_dtype", [("f8", np.complex128), ("f8", np.float16), ("f8", np.int32)])
def test_dtype_and_out_under_numpys_optimized_path(dtype, out_dtype):
    """dtype= with an out that casting='safe' refuses both ways: numpy's optimized path computes in dtype= and writes
    out unchecked; gettpy does so where every value survives (small integers here), refuses with optimize='auto'
    as numpy's default path does, and names the element that would change (0.1 into float16), out untouched."""
    a = _R.integers(-4, 5, (3, 4)).astype(np.float64)
    b = _R.integers(-4, 5, (4, 2)).astype(np.float64)
    out = np.zeros((3, 2), out_dtype)
    assert gettpy.einsum("ij,jk->ik", a, b, dtype=dtype, out=out, optimize="optimal") is out
    want = np.zeros_like(out)
    np.einsum("ij,jk->ik", a, b, dtype=dtype, out=want, optimize="optimal", casting="unsafe")
    np.testing.assert_array_equal(out, want)
    with pytest.raises(TypeError):
        gettpy.einsum("ij,jk->ik", a, b, dtype=dtype, out=np.zeros_like(out))
    if np.dtype(dtype).kind == "f" and np.dtype(out_dtype) == np.float16:
        kept = np.full((3, 2), 7, out_dtype)
        with pytest.raises(DtypeError, match=r"at \(0, 0\)"):
            gettpy.einsum("ij,jk->ik", a + 0.1, b, dtype=dtype, out=kept, optimize="optimal")
        assert (kept == 7).all()


@pytest.mark.parametrize("spelling,want", [("i8", np.int64), ("u8", np.uint64), ("f8", np.float64), ("i4", np.int32),
                                            ("c16", np.complex128)])
def test_numpy_dtype_strings_mean_numpys_types(spelling, want):
    """A dtype string numpy knows is numpy's type ('i8' int64), never the gettpy short name it also spells (int8):
    100 * 100 + 100 * 100 in int8 would wrap to 32."""
    x = np.array([100, 100], np.int32)
    got = gettpy.einsum("i,i->", x, x, dtype=spelling, casting="unsafe")
    ref = np.einsum("i,i->", x, x, dtype=spelling, casting="unsafe")
    assert np.asarray(got).dtype == np.dtype(want) == ref.dtype and got == ref == 20000
    d = gettpy.TensorDescriptor((2,), dtype=spelling)
    assert d.dtype == gettpy.TensorDescriptor((2,), dtype=np.dtype(want)).dtype


def test_numpy_f16_string_is_longdouble_refused():
    x = np.ones(2)
    with pytest.raises(DtypeError, match="longdouble"):
        gettpy.einsum("i,i->", x, x, dtype="f16")
    with pytest.raises(DtypeError):
        gettpy.TensorDescriptor((2,), dtype="f16")


def _desc(x):
    return gettpy.TensorDescriptor.of(x)


@pytest.mark.parametrize("ins,ct,ok", [
    (np.float32, "float16", False), (np.float32, "bfloat16", False), (np.float64, "float32", False),
    (np.float16, "float16", True), (np.float16, "float32", True), (np.float32, "float64", True),
])
def test_compute_type_never_narrower_than_the_operands(ins, ct, ok):
    a, b, d = np.ones((2, 3), ins), np.ones((3, 4), ins), np.zeros((2, 4), ins)
    if not ok:
        with pytest.raises(DtypeError, match="narrower"):
            gettpy.plan(_desc(a), "ik", _desc(b), "kj", _desc(d), "ij", compute_type=ct)
        return
    p = gettpy.plan(_desc(a), "ik", _desc(b), "kj", _desc(d), "ij", compute_type=ct)
    gettpy.contract(p, 1.0, a, b, 0.0, None, d)
    np.testing.assert_array_equal(d, np.full((2, 4), 3, ins))


@pytest.mark.parametrize("alpha,beta", [(True, False), (True, True), (False, True), (1, 0)])
def test_bool_plan_takes_bool_alpha_and_beta(alpha, beta):
    """A bool plan's D = (alpha and any_k(A and B)) or (beta and C), numpy's bool arithmetic."""
    a, b = _R.random((3, 5)) < 0.3, _R.random((5, 4)) < 0.3
    c = _R.random((3, 4)) < 0.5
    d = c.copy()
    p = gettpy.plan(_desc(a), "ik", _desc(b), "kj", _desc(c), "ij")
    gettpy.contract(p, alpha, a, b, beta, d, d)
    want = (bool(alpha) & np.einsum("ik,kj->ij", a, b)) | (bool(beta) & c)
    np.testing.assert_array_equal(d, want)


@pytest.mark.parametrize("subs", ["ii,ij->ij", "ik,kk->ik", "ik,kj->ii"])
def test_contraction_refuses_repeated_modes_when_constructed(subs):
    a, b = np.ones((3, 3)), np.ones((3, 3))
    with pytest.raises(SubscriptError, match="appears twice"):
        gettpy.Contraction(subs, a, b)


@pytest.mark.parametrize("call", [lambda x: gettpy.pad(x, True), lambda x: gettpy.pad(x, (2, np.True_)),
                                  lambda x: gettpy.unpad(x, (True, 2)), lambda x: gettpy.unpad(x, (1.5, 2))])
def test_pad_sizes_are_integers_not_bools(call):
    x = np.ones((3, 2))
    with pytest.raises(ArgumentError):
        call(x)
    assert issubclass(ArgumentError, TypeError)


def test_exact_out_cast_computes_in_the_operands_type():
    """numpy's optimized path computes in the operands' type and then writes `out`: an int64 sum above 2**53 into a
    uint64 out keeps every bit (a float64 stage would round it), and an int64 sum that wraps into a float32 out
    wraps as numpy's does."""
    a, b = np.array([[2**53 + 1, 0]]), np.array([1, 1])
    out = np.zeros(1, np.uint64)
    gettpy.einsum("ij,j->i", a, b, out=out, optimize="optimal")
    want = np.zeros(1, np.uint64)
    np.einsum("ij,j->i", a, b, out=want, optimize="optimal")
    assert out[0] == want[0] == 2**53 + 1
    o32 = np.array(5, np.float32)
    gettpy.einsum("i,i->", np.array([2**62]), np.array([4]), out=o32, optimize="optimal")
    assert o32 == np.einsum("i,i->", np.array([2**62]), np.array([4]), out=np.array(5, np.float32),
                            optimize="optimal") == 0.0
    with pytest.raises(DtypeError, match="float32"):  # (2**53 + 1 has no float32: refused, not rounded)
        gettpy.einsum("i,i->", np.array([2**53 + 1]), np.array([1]), out=np.array(0, np.float32), optimize=True)


@pytest.mark.parametrize("value", [complex(1, np.nan), complex(np.nan, 3), complex(2, 1e-300)])
def test_exact_out_cast_refuses_any_imaginary_part(value):
    out = np.full(1, 5.0)
    with pytest.raises(DtypeError, match=r"at \(0,\)"):
        gettpy.einsum("ij->i", np.array([[value, 0j]]), out=out, optimize=True)
    assert out[0] == 5.0


@pytest.mark.parametrize("optimize", [("einsum_path", (0, 1)), ["einsum_path", (0, 1)], ("greedy", 1e9), True])
def test_numpys_optimized_path_spellings(optimize):
    out = np.zeros((2, 2), np.int64)
    gettpy.einsum("ij,jk->ik", np.ones((2, 3)), np.ones((3, 2)), out=out, optimize=optimize)
    assert (out == 3).all()
    with pytest.raises(DtypeError):
        gettpy.einsum("ij,jk->ik", np.ones((2, 3)), np.ones((3, 2)), out=out, optimize="auto")


@pytest.mark.parametrize("axes", ["x", (0,), [0, 1, 2], 1.5, None])
def test_tensordot_axes_errors_are_numpys_kinds(axes):
    """An `axes` that is iterable but not a pair is numpy's ValueError; one that is neither an int nor iterable its
    TypeError."""
    a, b = np.ones((2, 3)), np.ones((3, 4))
    with pytest.raises((TypeError, ValueError)) as want:
        np.tensordot(a, b, axes=axes)
    with pytest.raises(want.type):
        gettpy.tensordot(a, b, axes=axes)


_A_CASES = [
    ("ii,jk->ijk", [(3, 3, "F"), (4, 5, "F")]),      # (a diagonal of extent 3: numpy's view is not F: C)
    ("ii,jk->ijk", [(1, 1, "F"), (4, 5, "F")]),      # (a diagonal of extent 1 is)
    ("a,cc,->ca", [(3, "C"), (1, 1, "C"), ("C",)]),
    ("a,cc,->ca", [(3, "C"), (3, 3, "F"), ("C",)]),
    ("ij,jk->ik", [(3, 4, "F"), (4, 5, "F")]),
    ("ij,jk->ik", [(3, 4, "C"), (4, 5, "F")]),
    ("i,jk->ijk", [(3, "C"), (4, 5, "F")]),
    ("iij,k->ijk", [(3, 3, 4, "F"), (2, "C")]),
    ("...i,jk->...ijk", [(2, 3, "F"), (4, 5, "F")]),
    ("ijj,kl->ikl", [(2, 1, 1, "F"), (3, 4, "F")]),
]


@pytest.mark.parametrize("eq,specs", _A_CASES)
def test_order_a_follows_numpys_views(eq, specs):
    """order='A': F where every operand, as numpy views it (repeated modes one diagonal axis), is F-contiguous;
    the result's strides are numpy's."""
    ops = [np.asarray(_R.standard_normal(s[:-1]), order=s[-1]) for s in specs]
    got, want = gettpy.einsum(eq, *ops, order="A"), np.einsum(eq, *ops, order="A")
    assert got.strides == want.strides
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("eq,arrays,out_dtype", [
    ("ij->i", [np.array([[-1, 0]], np.int8)], np.uint8),                      # (-1 would wrap to 255)
    ("ij,jk->ik", [np.array([[-1]]), np.array([[1]])], np.uint64),              # (to 2**64 - 1)
    ("i,i->", [np.array([200], np.uint8), np.array([1], np.uint8)], np.int8),   # (to -56)
    ("i,i->", [np.array([2**64 - 12], np.uint64), np.array([1], np.uint64)], np.int16),
    ("i,i->", [np.array([-np.inf], np.float16), np.array([1], np.float16)], np.int64),  # (to int64's minimum)
    ("i,i->", [np.array([2.0**63]), np.array([1.0])], np.int64),               # (one past int64's maximum)
    ("i,i->", [np.array([2.0]), np.array([1.0])], np.bool_),                    # (2 is no bool)
])
def test_exact_out_cast_refuses_wrapped_integers(eq, arrays, out_dtype):
    """Into an integer or bool out a value must be whole, finite and in range: a cast and back would pass -1 into
    uint8 (255 -> -1) and -inf into int64 (its minimum -> -inf in float16). Refused, out untouched."""
    shape = np.einsum(eq, *arrays).shape
    out = np.full(shape, 7, out_dtype) if out_dtype is not np.bool_ else np.zeros(shape, bool)
    before = out.copy()
    with pytest.raises(DtypeError):
        gettpy.einsum(eq, *arrays, out=out, optimize=True)
    np.testing.assert_array_equal(out, before)


def test_exact_out_cast_under_casting_no_computes_in_the_operands_type():
    """casting='no' on numpy's optimized path: int32 operands computed in int32 and written into an int64 out (the
    operands need not cast to int64 under 'no'), as numpy writes them."""
    a = np.arange(4, dtype=np.int32).reshape(2, 2)
    out = np.zeros((2, 2), np.int64)
    gettpy.einsum("ij,jk->ik", a, a, out=out, optimize=True, casting="no")
    want = np.zeros((2, 2), np.int64)
    np.einsum("ij,jk->ik", a, a, out=want, optimize=True, casting="no")
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("ta,tb,out_dtype", [(np.int16, np.uint16, np.float32), (np.int8, np.uint8, np.float16)])
def test_result_type_of_operands_and_out_at_once(ta, tb, out_dtype):
    """numpy's result type of the operands and out together (int16, uint16, float32: float32), not of the operands'
    promotion with out (int32 with float32: float64, which float32 could not hold under casting='safe')."""
    a, b = np.full((2, 3), 3, ta), np.full((3, 2), 2, tb)
    out = np.zeros((2, 2), out_dtype)
    gettpy.einsum("ij,jk->ik", a, b, out=out)
    want = np.zeros((2, 2), out_dtype)
    np.einsum("ij,jk->ik", a, b, out=want)
    np.testing.assert_array_equal(out, want)
