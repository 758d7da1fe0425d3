"""Errors: malformed subscripts, operand count and rank, extents, dtypes, `out`; messages name the culprit."""
from __future__ import annotations

import re

import numpy as np
import pytest
from harness import assert_close, nonzero

import gettpy
from gettpy import ops
from gettpy.errors import DtypeError, GettpyError, LayoutError, ShapeError, SubscriptError

SENTINEL = -12345.0


def _arrays(rng, shapes, dtype=np.float64):
    return [nonzero(rng, s, dtype) for s in shapes]


def _has_number(msg: str, n: int) -> bool:
    return re.search(rf"(?<!\d){n}(?!\d)", msg) is not None


def test_error_hierarchy():
    """numpy code catches ValueError/TypeError; gettpy code catches GettpyError."""
    assert issubclass(SubscriptError, ValueError) and issubclass(SubscriptError, GettpyError)
    assert issubclass(ShapeError, ValueError) and issubclass(ShapeError, GettpyError)
    assert issubclass(LayoutError, ValueError) and issubclass(LayoutError, GettpyError)
    assert issubclass(DtypeError, TypeError) and issubclass(DtypeError, GettpyError)
    assert gettpy.SubscriptError is SubscriptError and gettpy.DtypeError is DtypeError


# --- malformed subscripts
MALFORMED = [
    ("two_arrows", "ij,jk->ij->k", [(2, 3), (3, 4)], None),
    ("dollar", "i$j", [(2, 3)], "'$'"),
    ("digit", "i1", [(2, 3)], "'1'"),
    ("unknown_output_mode", "ij->a", [(2, 3)], "'a'"),
    ("unknown_output_mode_2ops", "ij,jk->iz", [(2, 3), (3, 4)], "'z'"),
    ("output_mode_repeated", "ij->ii", [(2, 2)], "'i'"),
    ("output_mode_repeated_2ops", "ij,jk->ikk", [(2, 3), (3, 4)], "'k'"),
    ("lone_dash", "ij-jk", [(2, 3)], None),
    ("lone_gt", "ij>jk", [(2, 3)], None),
    ("two_ellipses_in_term", "i...j...", [(2, 3, 4)], None),
    ("dot_not_ellipsis", "i.j", [(2, 3)], None),
    ("ellipsis_dropped_from_output", "...ij->ij", [(2, 3, 4)], None),
    ("output_two_ellipses", "...i->......i", [(2, 3)], None),
]


@pytest.mark.parametrize("subscripts,shapes,needle", [pytest.param(s, sh, n, id=i) for i, s, sh, n in MALFORMED])
def test_malformed_subscripts(rng, subscripts, shapes, needle):
    xs = _arrays(rng, shapes)
    with pytest.raises(SubscriptError) as info:
        gettpy.einsum(subscripts, *xs)
    if needle is not None:
        assert needle in str(info.value)
    with pytest.raises(ValueError):  # the test's premise: numpy refuses these too
        np.einsum(subscripts, *xs)


# --- operand count and rank
@pytest.mark.parametrize("subscripts,shapes", [
    pytest.param("ij,jk->ik", [(2, 3)], id="too_few"),
    pytest.param("ij,jk->ik", [(2, 3), (3, 4), (4,)], id="too_many"),
    pytest.param("ij", [(2, 3), (3,)], id="too_many_implicit"),
    pytest.param("i,j,k", [(2,), (3,)], id="three_terms_two_operands"),
])
def test_wrong_operand_count(rng, subscripts, shapes):
    with pytest.raises(SubscriptError):
        gettpy.einsum(subscripts, *_arrays(rng, shapes))


def test_no_operands():
    with pytest.raises(SubscriptError):
        gettpy.einsum("ij")
    with pytest.raises((SubscriptError, TypeError)):
        gettpy.einsum()


@pytest.mark.parametrize("subscripts,shapes,operand", [
    pytest.param("ijk", [(2, 3)], 0, id="too_many_labels"),
    pytest.param("ij", [(2,)], 0, id="too_many_labels_1d"),
    pytest.param("i", [(2, 3)], 0, id="too_few_labels"),
    pytest.param("ij,jk->ik", [(2, 3), (3, 4, 5)], 1, id="second_operand"),
    pytest.param("ij...,jk->ik", [(2,), (3, 4)], 0, id="ellipsis_cannot_be_negative"),
    pytest.param("->", [(2,)], 0, id="labels_for_0d_given_1d"),
])
def test_rank_mismatch(rng, subscripts, shapes, operand):
    with pytest.raises((SubscriptError, ShapeError)) as info:
        gettpy.einsum(subscripts, *_arrays(rng, shapes))
    assert f"operand {operand}" in str(info.value)


# --- extents disagreeing between operands
@pytest.mark.parametrize("subscripts,shapes,mode,e1,e2,operand", [
    pytest.param("ij,jk", [(2, 3), (4, 5)], "j", 3, 4, 1, id="ij_jk"),
    pytest.param("ij,jk->ik", [(2, 7), (9, 5)], "j", 7, 9, 1, id="ij_jk_explicit"),
    pytest.param("bij,bjk->bik", [(2, 3, 4), (6, 4, 5)], "b", 2, 6, 1, id="batch"),
    pytest.param("ij,jk,kl->il", [(2, 3), (3, 4), (5, 6)], "k", 4, 5, 2, id="chain3_third"),
    pytest.param("i,i->i", [(7,), (8,)], "i", 7, 8, 1, id="hadamard"),
])
def test_extent_mismatch(rng, subscripts, shapes, mode, e1, e2, operand):
    xs = _arrays(rng, shapes)
    with pytest.raises(ShapeError) as info:
        gettpy.einsum(subscripts, *xs)
    msg = str(info.value)
    assert f"'{mode}'" in msg, msg
    assert _has_number(msg, e1) and _has_number(msg, e2), msg
    assert f"operand {operand}" in msg, msg


def test_extent_mismatch_within_operand(rng):
    """A repeated mode (diagonal) needs equal extents."""
    with pytest.raises(ShapeError) as info:
        gettpy.einsum("ii->i", nonzero(rng, (3, 4)))
    msg = str(info.value)
    assert "'i'" in msg and _has_number(msg, 3) and _has_number(msg, 4) and "operand 0" in msg


def test_extent_mismatch_ellipsis(rng):
    with pytest.raises(ShapeError):
        gettpy.einsum("...i,...i", nonzero(rng, (2, 3)), nonzero(rng, (4, 3)))


def test_extent_mismatch_sublist(rng):
    with pytest.raises(ShapeError) as info:
        gettpy.einsum(nonzero(rng, (2, 3)), [0, 1], nonzero(rng, (4, 5)), [1, 2], [0, 2])
    msg = str(info.value)
    assert _has_number(msg, 3) and _has_number(msg, 4)


# --- sublist form
@pytest.mark.parametrize("sub", [
    pytest.param([0, -1], id="negative"),
    pytest.param([52], id="too_large"),
    pytest.param(["a"], id="string_label"),
    pytest.param([0, Ellipsis, Ellipsis], id="two_ellipses"),
    pytest.param([True], id="bool_label"),
])
def test_bad_sublist(rng, sub):
    with pytest.raises(SubscriptError):
        gettpy.einsum(nonzero(rng, (2,) * max(1, len(sub))), sub)


# --- dtypes
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint16, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_integer_and_bool_inputs(rng, dtype):
    """Integer and bool einsum run on the CPU executor with numpy's result types and values."""
    a = (rng.integers(1, 5, size=(3, 4))).astype(dtype)
    b = nonzero(rng, (4, 2))
    for x, y in ((a, a.T.copy()), (a, b)):
        got, want = gettpy.einsum("ij,jk->ik", x, y), np.einsum("ij,jk->ik", x, y)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_integer_dtype_argument(rng):
    """dtype=int32 for float inputs: numpy refuses it under casting='safe'."""
    with pytest.raises(DtypeError):
        gettpy.einsum("ij,jk->ik", nonzero(rng, (3, 4)), nonzero(rng, (4, 2)), dtype=np.int32)


def test_complex_inputs_with_real_dtype_argument(rng):
    """numpy refuses dtype=float64 for complex inputs (casting='safe'); silently dropping the imaginary
    part would be wrong."""
    a, b = nonzero(rng, (3, 4), np.complex128), nonzero(rng, (4, 2), np.complex128)
    with pytest.raises(TypeError):
        np.einsum("ij,jk->ik", a, b, dtype=np.float64)
    with pytest.raises(TypeError):  # DtypeError is a TypeError
        gettpy.einsum("ij,jk->ik", a, b, dtype=np.float64)


def test_object_inputs(rng):
    with pytest.raises(DtypeError):
        gettpy.einsum("i,i->", np.array([1.0, 2.0], dtype=object), np.ones(2))


# --- out of the wrong shape or dtype: an error, and out is left untouched
BAD_OUTS = [
    ("shape_transposed", (5, 3), np.float64, ShapeError, {}),
    ("shape_extra_dim", (3, 5, 1), np.float64, ShapeError, {}),
    ("shape_missing_dim", (3,), np.float64, ShapeError, {}),
    ("shape_0d", (), np.float64, ShapeError, {}),
    ("dtype_int", (3, 5), np.int64, DtypeError, {}),
    ("dtype_complex_into_real", (3, 5), np.float64, DtypeError, {"complex": True}),
    ("dtype_conflicts_with_dtype_arg", (3, 5), np.float32, DtypeError, {"dtype": np.float64}),
]


@pytest.mark.parametrize("shape,dtype,error,kw", [pytest.param(s, d, e, k, id=i) for i, s, d, e, k in BAD_OUTS])
def test_bad_out_left_untouched(rng, shape, dtype, error, kw):
    in_dt = np.complex128 if kw.get("complex") else np.float64
    a, b = nonzero(rng, (3, 4), in_dt), nonzero(rng, (4, 5), in_dt)
    out = np.full(shape, SENTINEL if np.dtype(dtype).kind == "f" else -7, dtype=dtype)
    before = out.copy()
    extra = {"dtype": kw["dtype"]} if "dtype" in kw else {}
    with pytest.raises(error):
        gettpy.einsum("ij,jk->ik", a, b, out=out, **extra)
    np.testing.assert_array_equal(out, before, err_msg="out was written although einsum raised")


def test_error_after_out_given_leaves_out_untouched(rng):
    """An extent mismatch found with `out` given must not have written into `out`."""
    out = np.full((2, 5), SENTINEL)
    with pytest.raises(ShapeError):
        gettpy.einsum("ij,jk->ik", nonzero(rng, (2, 3)), nonzero(rng, (4, 5)), out=out)
    assert (out == SENTINEL).all()


def test_out_not_an_array(rng):
    with pytest.raises((GettpyError, TypeError, AttributeError)):
        gettpy.einsum("ij,jk->ik", nonzero(rng, (2, 3)), nonzero(rng, (3, 4)), out=[[0.0] * 4] * 2)


def test_out_overlapping_itself(rng):
    """An output whose distinct elements share memory cannot be written: refuse it, leave memory alone."""
    buf = np.full(8, SENTINEL)
    out = np.lib.stride_tricks.as_strided(buf, shape=(3, 3), strides=(8, 8))  # out[i, j] is buf[i + j]
    with pytest.raises(GettpyError):
        gettpy.einsum("ij,jk->ik", nonzero(rng, (3, 2)), nonzero(rng, (2, 3)), out=out)
    assert (buf == SENTINEL).all()


# --- out overlapping an input: either a GettpyError or the right answer
def _raises_or_correct(fn, ref, out):
    try:
        got = fn()
    except GettpyError:
        return
    assert got is out
    assert_close(out, ref, np.float64)


def test_out_is_an_input(rng):
    a, b = nonzero(rng, (4, 4)), nonzero(rng, (4, 4))
    ref = a @ b
    _raises_or_correct(lambda: gettpy.einsum("ij,jk->ik", a, b, out=a), ref, a)


def test_out_is_second_input(rng):
    a, b = nonzero(rng, (4, 4)), nonzero(rng, (4, 4))
    ref = a @ b
    _raises_or_correct(lambda: gettpy.einsum("ij,jk->ik", a, b, out=b), ref, b)


def test_out_is_transposed_input(rng):
    a = nonzero(rng, (4, 4))
    ref = a @ a
    out = a.T
    _raises_or_correct(lambda: gettpy.einsum("ij,jk->ik", a, a, out=out), ref, out)


def test_out_overlaps_part_of_input(rng):
    buf = nonzero(rng, (6, 4))
    a = buf[:4]
    out = buf[2:]
    b = nonzero(rng, (4, 4))
    ref = a @ b
    _raises_or_correct(lambda: gettpy.einsum("ij,jk->ik", a, b, out=out), ref, out)


def test_out_is_input_of_permute(rng):
    a = nonzero(rng, (4, 4))
    ref = a.T.copy()
    _raises_or_correct(lambda: gettpy.einsum("ij->ji", a, out=a), ref, a)


def test_out_is_input_in_chain(rng):
    a, b, c = nonzero(rng, (3, 3)), nonzero(rng, (3, 3)), nonzero(rng, (3, 3))
    ref = a @ b @ c
    _raises_or_correct(lambda: gettpy.einsum("ij,jk,kl->il", a, b, c, out=c), ref, c)


# --- options
def test_unknown_keyword(rng):
    with pytest.raises(TypeError):
        gettpy.einsum("ij,jk->ik", nonzero(rng, (2, 3)), nonzero(rng, (3, 4)), frobnicate=True)


@pytest.mark.parametrize("bad_ops", [
    pytest.param([ops.relu], id="too_few"),
    pytest.param([ops.relu, None, None], id="too_many"),
    pytest.param(ops.relu, id="single_op_not_a_list"),
    pytest.param(["no_such_op", None], id="unknown_name"),
])
def test_bad_ops(rng, bad_ops):
    with pytest.raises(GettpyError):
        gettpy.einsum("ij,jk->ik", nonzero(rng, (2, 3)), nonzero(rng, (3, 4)), ops=bad_ops)


def test_bad_op_out(rng):
    with pytest.raises(GettpyError):
        gettpy.einsum("ij,jk->ik", nonzero(rng, (2, 3)), nonzero(rng, (3, 4)), op_out="no_such_op")


def test_bad_custom_op():
    with pytest.raises(GettpyError):
        ops.custom("y + 1", numpy=lambda y: y + 1)
    with pytest.raises(GettpyError):
        ops.custom("x + 1", numpy="not callable")
