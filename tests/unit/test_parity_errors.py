"""numpy parity of einsum's errors: every mistake raises the builtin kind numpy raises for it (TypeError or
ValueError, through gettpy's own classes), naming the argument at fault.

Each row is a call; the expected kind is checked against numpy itself where numpy takes the call, so the
table cannot drift from numpy's behaviour.
"""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import gettpy
import gettpy.errors as gerr

A = np.linspace(0.5, 3.0, 6).reshape(2, 3)
V = np.linspace(1.0, 2.0, 3)
RO = np.zeros((0, 2))  # (a read-only, empty out: numpy refuses it though nothing would be written)
RO.flags.writeable = False

# (id, positional args, keyword args, builtin kind, text the message must contain, numpy takes the call)
CASES = [
    ("no_arguments", (), {}, ValueError, "subscripts", True),
    ("subscripts_without_operand", ("",), {}, ValueError, "", True),
    ("subscripts_not_a_string", (0, 0), {}, TypeError, "sublist", True),
    ("none_operands", (None,) * 63, {}, TypeError, "sublist", True),
    ("too_many_operands", ("", 0, 0), {}, ValueError, "operand", True),
    ("too_few_operands", (",", [0]), {}, ValueError, "operand", True),
    ("more_labels_than_dims", ("i", 0), {}, ValueError, "dimension", True),
    ("more_labels_than_dims_ellipsis", ("i...j", [0.0, 0.0]), {}, ValueError, "", True),
    ("broken_ellipsis", ("i..", [0.0, 0.0]), {}, ValueError, "'.'", True),
    ("bad_character", ("i%", [[0.0]]), {}, ValueError, "'%'", True),
    ("output_label_not_in_input", ("i->ij", [0.0, 0.0]), {}, ValueError, "'j'", True),
    ("output_label_twice", ("ij->jij", [[0.0, 0.0]]), {}, ValueError, "'j'", True),
    ("diagonal_of_unequal_extents", ("ii", A), {}, ValueError, "'i'", True),
    ("mismatched_extents", ("ij,j", A, np.ones(4)), {}, ValueError, "'j'", True),
    ("repeated_label_error_names_it", ("aabcb,abc", np.ones((3, 3, 4, 5, 6)), np.ones((3, 4, 5))), {},
     ValueError, "'b'", True),
    ("sublist_float_entry", (A, [0.5, 1]), {}, TypeError, "0.5", True),
    ("sublist_bool_entry", (V, [True]), {}, TypeError, "bool", True),
    ("sublist_str_entry", (V, ["a"]), {}, TypeError, "'a'", True),
    ("sublist_is_a_string", (V, "i"), {}, TypeError, "sublist", True),
    ("sublist_label_too_large", (A, [0, 52]), {}, ValueError, "52", True),
    ("sublist_label_negative", (A, [-1, 5]), {}, ValueError, "-1", True),
    ("sublist_two_ellipses", (V, [Ellipsis, Ellipsis]), {}, ValueError, "Ellipsis", True),
    ("out_is_a_string", ("", 0.0), {"out": "test"}, TypeError, "out", True),
    ("out_is_a_list", ("i", V), {"out": [0.0, 0.0, 0.0]}, TypeError, "out", True),
    ("out_is_a_numpy_scalar", ("i,i->", V, V), {"out": np.zeros(())[()]}, TypeError, "out", True),
    ("out_wrong_shape", ("i", V), {"out": np.zeros(4)}, ValueError, "out", True),
    ("out_cannot_receive_under_safe", ("i->i", V), {"out": np.zeros(3, np.float32), "dtype": np.float64},
     TypeError, "out", True),
    ("out_read_only", ("ij->ij", np.ones((0, 2))), {"out": RO}, ValueError, "read-only", True),
    ("out_wrong_shape_and_type", ("ij,jk->ik", A, A.T), {"out": np.zeros((5, 5), np.int32)}, ValueError, "shape",
     True),
    ("out_wrong_shape_and_type_dtype", ("ij,jk->ik", A, A.T), {"out": np.zeros((5, 5), np.int32),
                                                                "dtype": np.float32}, ValueError, "shape", True),
    ("order_unknown", ("i", V), {"order": "W"}, ValueError, "order", True),
    ("order_not_a_string", ("i", V), {"order": 3}, TypeError, "order", True),
    ("order_checked_on_views", ("i->i", np.ones((6, 1))), {"order": "d"}, ValueError, "order", True),
    ("casting_unknown", ("i", V), {"casting": "blah"}, ValueError, "casting", True),
    ("casting_wrong_case", ("i", V), {"casting": "SAFE"}, ValueError, "casting", True),
    ("casting_not_a_string", ("i", V), {"casting": None}, TypeError, "casting", True),
    ("casting_same_value", ("ij->j", [V, V]), {"casting": "same_value"}, ValueError, "casting", True),
    ("dtype_not_a_dtype", ("", 0.0), {"dtype": "bad_data_type"}, TypeError, "", True),
    ("unknown_keyword", ("", 0.0), {"bad_arg": 0}, TypeError, "bad_arg", True),
    ("optimize_float", ("i,i", V, V), {"optimize": 3.5}, TypeError, "optimize", True),
    ("optimize_int", ("i,i,i", V, V, V), {"optimize": 1}, TypeError, "optimize", True),
    ("optimize_unknown_name", ("i,i,i", V, V, V), {"optimize": "bogus"}, ValueError, "bogus", False),
    ("optimize_unknown_name_key", ("i,i,i", V, V, V), {"optimize": "bogus"}, KeyError, "bogus", True),
    ("explicit_path_index_out_of_range", ("ab,bc,cd->ad", *[np.ones((2, 2))] * 3),
     {"optimize": ["einsum_path", (0, 7), (0, 1)]}, IndexError, "operand 7", True),
    ("optimize_unknown_name_two_operands", ("i,i", V, V), {"optimize": "bogus"}, ValueError, "bogus", False),
    ("optimize_triple", ("i,i", V, V), {"optimize": ("greedy", 1000, 3)}, TypeError, "optimize", True),
    ("explicit_path_leaves_operands", ("ab,bc,cd,de->ae", *[np.ones((2, 2))] * 4),
     {"optimize": ["einsum_path", (2, 3), (0, 1)]}, RuntimeError, "uncontracted", True),
    ("explicit_path_single_step_short", ("a,a,a->a", V, V, V), {"optimize": ["einsum_path", (1,), (0, 1)]},
     RuntimeError, "uncontracted", True),
    ("object_operand", ("i,i", np.ones(3, object), V), {}, TypeError, "numpy.einsum", False),
    ("longdouble_operand", ("ij,j", np.ones((2, 3), np.longdouble), V), {}, TypeError, "longdouble", False),
    ("clongdouble_operand", ("i->", np.ones(3, np.clongdouble)), {}, TypeError, "clongdouble", False),
    ("object_dtype", ("i,i", V, V), {"dtype": object}, TypeError, "object", False),
    ("ops_not_a_sequence", ("i,i", V, V), {"ops": "relu"}, TypeError, "ops", False),
    ("ops_wrong_count", ("i,i", V, V), {"ops": ["relu"]}, ValueError, "ops", False),
]


@pytest.mark.parametrize("args,kwargs,kind,needle,numpy_takes",
                         [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_error_kind_matches_numpy(args, kwargs, kind, needle, numpy_takes):
    with pytest.raises(kind) as info:
        gettpy.einsum(*args, **kwargs)
    assert isinstance(info.value, gerr.GettpyError), f"{type(info.value).__name__} is not one of gettpy's errors"
    assert needle in str(info.value), f"{needle!r} not named in: {info.value}"
    if numpy_takes:  # the same call in numpy raises the same builtin kind
        with pytest.raises(kind):
            np.einsum(*args, **kwargs)


@pytest.mark.parametrize("optimize", [True, False, None, "greedy", "optimal", "dp", "auto", "auto-hq", "branch-2",
                                      "branch-all", "random-greedy", "random-greedy-128", ("greedy", 0),
                                      ("optimal", 10**6), np.True_, ["einsum_path", (0, 1), (0, 1)],
                                      [(0, 2), (0, 1)]])
def test_optimize_values_numpy_and_opt_einsum_take(optimize):
    x, y, z = np.linspace(1, 2, 6).reshape(2, 3), np.linspace(-1, 1, 12).reshape(3, 4), np.linspace(0, 1, 4)
    got = gettpy.einsum("ij,jk,k->i", x, y, z, optimize=optimize)
    np.testing.assert_allclose(got, x @ y @ z, rtol=1e-12)


@pytest.mark.parametrize("order", ["K", "A", "C", "F", "k", "a", "c", "f", None])
@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind", "unsafe"])
def test_order_and_casting_values_accepted(order, casting):
    got = gettpy.einsum("ij,j->i", A, V, order=order, casting=casting)
    np.testing.assert_allclose(got, A @ V, rtol=1e-12)


def test_every_error_class_is_a_value_or_type_error():
    classes = [c for _, c in inspect.getmembers(gerr, inspect.isclass)
               if issubclass(c, gerr.GettpyError) and c not in (gerr.GettpyError, gerr.KernelError)]
    assert len(classes) >= 7
    for c in classes:
        assert issubclass(c, ValueError | TypeError), c


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
@pytest.mark.parametrize("src", [object, np.longdouble])
def test_numpy_only_operands_cast_to_dtype(src, dtype):
    """With dtype= and casting='unsafe', numpy casts the operands to dtype and computes there; so does
    gettpy, and under 'safe' the cast is refused as numpy refuses it."""
    a = np.arange(9).astype(src)
    got = gettpy.einsum("i->", a, dtype=dtype, casting="unsafe")
    want = np.einsum("i->", a, dtype=dtype, casting="unsafe")
    assert got == want == 36 and np.asarray(got).dtype == dtype
    with pytest.raises(TypeError):
        np.einsum("i->", a, dtype=dtype, casting="safe")
    with pytest.raises(TypeError):
        gettpy.einsum("i->", a, dtype=dtype, casting="safe")


def test_views_of_numpy_only_types_pass():
    """A view computes nothing, so object arrays get one, as from numpy."""
    a = np.array([[1, "x"], [None, 2.5]], dtype=object)
    v = gettpy.einsum("ij->ji", a)
    assert np.shares_memory(v, a) and v[1, 0] == "x" and v[0, 1] is None


def test_error_leaves_out_untouched():
    out = np.full(3, -7.0, np.float32)
    with pytest.raises(TypeError):
        gettpy.einsum("i->i", V, out=out, dtype=np.float64)  # float64 into float32 is not 'safe'
    assert (out == -7.0).all()


@pytest.mark.parametrize("casting,advice", [("safe", "'same_kind' or 'unsafe'"), ("same_kind", "casting='unsafe'")])
def test_refused_cast_advises_only_looser_casting(casting, advice):
    with pytest.raises(TypeError) as e:
        gettpy.einsum("i->i", np.ones(3), dtype=np.int32, casting=casting)
    assert advice in str(e.value) and (casting == "safe" or "same_kind' or" not in str(e.value))


@pytest.mark.parametrize("subs", [".. .", "....", "i.j", ".....", "i. ..->i"])
def test_a_dot_outside_an_unbroken_ellipsis_is_refused_as_numpy_refuses_it(subs):
    a = np.ones((2, 3))
    with pytest.raises(ValueError):
        np.einsum(subs, a)
    with pytest.raises(gerr.SubscriptError, match="not part of an ellipsis"):
        gettpy.einsum(subs, a)
