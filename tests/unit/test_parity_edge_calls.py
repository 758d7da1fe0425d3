"""numpy's behaviour on edge calls: a zero-length mode under every path strategy of three or more operands, an
`out` wrong in shape and type at once (the shape reported first, as numpy does, whatever `optimize` is), a 0-d
integer array as tensordot's axes, and a mode summed in one operand only summed first (numpy's optimized value)."""
from __future__ import annotations

import numpy as np
import pytest

import gettpy


@pytest.mark.parametrize("optimize", ["dp", "greedy", "optimal", "branch-2", True, False])
def test_zero_length_mode_any_strategy(optimize):
    ops = (np.ones(()), np.ones((0, 0, 0)), np.ones(3), np.ones((3, 3)))
    got = gettpy.einsum(",aea,c,cc->", *ops, optimize=optimize)
    assert got == np.einsum(",aea,c,cc->", *ops) == 0.0
    a, b, c = np.ones((2, 0, 3)), np.ones((3, 4)), np.ones((4, 5))
    got = gettpy.einsum("abc,cd,de->ae", a, b, c, optimize=optimize)
    assert got.shape == (2, 5) and not got.any()


@pytest.mark.parametrize("optimize", ["greedy", True, False, "optimal"])
def test_out_wrong_in_shape_and_type_reports_the_shape(optimize):
    with pytest.raises(ValueError, match=r"shape \(1,\)") as e:
        gettpy.einsum("->", np.float32(1), dtype="complex64", casting="no", out=np.empty(1, np.float32),
                      optimize=optimize)
    assert not isinstance(e.value, TypeError)
    with pytest.raises(ValueError):  # (numpy: the same kind of error)
        np.einsum("->", np.float32(1), dtype="complex64", casting="no", out=np.empty(1, np.float32),
                  optimize=optimize)


def test_stretched_out_axis_through_a_cast():
    out = np.zeros((3, 4))
    got = gettpy.einsum("ij->ij", np.arange(3, dtype=np.float32).reshape(3, 1), dtype=np.float64, out=out,
                        optimize="greedy")
    assert got is out and out.tolist() == [[0.0] * 4, [1.0] * 4, [2.0] * 4]


@pytest.mark.parametrize("axes", [np.array(1), np.array(0), np.int64(1), True])
def test_tensordot_integer_like_axes(axes):
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4) if int(axes) else np.arange(4.0)
    np.testing.assert_array_equal(gettpy.tensordot(a, b, axes), np.tensordot(a, b, axes))


def test_one_sided_sum_first_as_numpys_optimized_path():
    x, y = np.array([[1.0, np.inf]]), np.array([[1.0, 0.0]])
    got = gettpy.einsum("ic,ia->i", x, y)
    assert np.isinf(got[0]) and np.isinf(np.einsum("ic,ia->i", x, y, optimize=True)[0])
    v = np.array([1.5, -2.0, 4.0])
    assert gettpy.einsum("e,c->c", v, np.array([0.5, 2.0])).tolist() == [1.75, 7.0]


def test_zero_length_mode_keeps_intermediates_small():
    """A summed mode of extent 0: the result is zeros, and the order is planned as if the extent were 1 (the
    in-order path would form a 260^4 outer product of the first two operands)."""
    a, c = np.ones((260, 260)), np.ones((260, 260, 0))
    got = gettpy.einsum("ij,kl,jkz->il", a, a, c)
    assert got.shape == (260, 260) and not got.any()


@pytest.mark.parametrize("alignment,err", [("x", TypeError), (1.5, TypeError), (0, ValueError), (3, ValueError),
                                           (-16, ValueError)])
def test_descriptor_alignment_checked(alignment, err):
    with pytest.raises(err, match="alignment"):
        gettpy.TensorDescriptor((3,), dtype=np.float32, alignment=alignment)
    assert gettpy.TensorDescriptor((3,), dtype=np.float32, alignment=4).alignment == 4


@pytest.mark.parametrize("spec,match", [("scale", "needs its parameter"), (("scale",), "needs its parameter"),
                                        (("scale", 1j), "real number"), (("leaky_relu", "a"), "real number")])
def test_op_parameters_named(spec, match):
    with pytest.raises(ValueError, match=match):
        gettpy.einsum("ij,jk->ik", np.ones((2, 2)), np.ones((2, 2)), ops=[spec, None])


def test_op_factories_refuse_non_real_parameters():
    from gettpy import ops

    for f, v in ((ops.scale, 1j), (ops.leaky_relu, "a"), (ops.elu, None)):
        with pytest.raises(ValueError, match=f.__name__):
            f(v)
    assert gettpy.einsum("i,i->", np.ones(3), np.ones(3), ops=["leaky_relu", ("scale", 2)]) == 6.0


def test_contract_expression_constants():
    c, m = np.array([2.0, 3.0]), np.arange(6.0).reshape(2, 3)
    x, y = np.arange(8.0).reshape(4, 2), np.arange(15.0).reshape(3, 5)
    e = gettpy.contract_expression("ij,j->i", (4, 2), c, constants=[1])
    np.testing.assert_array_equal(e(np.ones((4, 2))), [5.0] * 4)
    e = gettpy.contract_expression("ij,jk,kl->il", (4, 2), m, (3, 5), constants=[1])
    np.testing.assert_allclose(e(x, y), x @ m @ y, rtol=1e-13)
    with pytest.raises(ValueError, match="takes 2 operands"):
        e(x, m, y)
    with pytest.raises(TypeError, match="not an array"):
        gettpy.contract_expression("ij,j->i", (4, 2), (2,), constants=[1])


def test_contract_expression_takes_opt_einsums_call_keywords():
    """opt_einsum's ContractExpression takes backend= and evaluate_constants= at the call; so does gettpy's, with
    opt_einsum's values (numpy arrays run on numpy whatever backend names), and an unknown backend is refused."""
    import opt_einsum as oe

    x, m, y = np.arange(8.0).reshape(4, 2), np.arange(6.0).reshape(2, 3), np.arange(15.0).reshape(3, 5)
    want = oe.contract_expression("ij,jk,kl->il", x.shape, m.shape, y.shape)(x, m, y, backend="numpy")
    e = gettpy.contract_expression("ij,jk,kl->il", x.shape, m.shape, y.shape)
    for backend in ("auto", "numpy", "gettpy"):
        np.testing.assert_allclose(e(x, m, y, backend=backend, evaluate_constants=False), want, rtol=1e-13)
    with pytest.raises(ValueError, match="backend='torch'"):
        e(x, m, y, backend="torch")


class _DLPackOnly:
    """An array that speaks only DLPack (no __array__, shape or ndim)."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, **kw):
        return self._a.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_dlpack_only_objects_in_pad_and_tensordot():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(gettpy.pad(_DLPackOnly(x), 4), gettpy.pad(x, 4))
    np.testing.assert_array_equal(gettpy.tensordot(_DLPackOnly(x), _DLPackOnly(x.T), 1), x @ x.T)


def test_pad_counts_as_numpy_takes_them():
    x = np.arange(6.0).reshape(2, 3)
    assert gettpy.pad(x, np.array(2)).shape == (2, 4)
    assert gettpy.pad(x, (m for m in (4, 4))).shape == (4, 4)
    with pytest.raises(ValueError, match=r"multiples \(4,\)"):  # (a generator read once, reported as given)
        gettpy.pad(x, (m for m in (4,)))
    assert gettpy.unpad(gettpy.pad(x, 4), (e for e in (2, 3))).tolist() == x.tolist()
