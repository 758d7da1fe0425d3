"""The plan API and einsum's explicit paths refuse what they cannot compute right: alpha/beta typed and
validated against the compute type, alpha == 0 reads neither A nor B, non-arrays and bad ops named in
TypeError/ValueError subclasses with D untouched, self-overlapping D refused, 64-bit overflowing sizes
refused at once, incomplete or malformed explicit paths refused, and TensorDescriptor's default strides
explained. References: numpy in float64 / complex128 (and numpy.einsum for explicit paths)."""
from __future__ import annotations

import time

import numpy as np
import pytest

import gettpy
from gettpy import ops
from gettpy.errors import DtypeError, GettpyError, LayoutError, OpError, ShapeError, SubscriptError


def _arrays(dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((3, 4))
    b = rng.standard_normal((4, 5))
    c = rng.standard_normal((3, 5))
    if np.dtype(dtype).kind == "c":
        a, b, c = a + 1j * rng.standard_normal(a.shape), b + 1j * rng.standard_normal(b.shape), \
            c + 1j * rng.standard_normal(c.shape)
    return a.astype(dtype), b.astype(dtype), c.astype(dtype)


def _plan(a, b, d, op_c=None, op_d=None, c=None):
    desc = gettpy.TensorDescriptor.of
    dc = desc(c if c is not None else d, op_c)
    return gettpy.plan(desc(a), "ik", desc(b), "kj", dc, "ij", desc(d, op_d), "ij")


# ------------------------------------------------------------------------------- alpha and beta
@pytest.mark.parametrize("alpha,beta,name", [
    (None, 0.0, "alpha"), (1.0, None, "beta"), ("2", 0.0, "alpha"), (1.0, "0", "beta"), (1j, 0.0, "alpha"),
    (1.0, 2 + 1j, "beta"), ([1.0], 0.0, "alpha"), (np.array([1.0, 2.0]), 0.0, "alpha"),
])
def test_bad_alpha_beta_raise_type_errors_naming_them(alpha, beta, name):
    a, b, c = _arrays()
    d = np.full((3, 5), np.nan)
    p = _plan(a, b, d, c=c)
    with pytest.raises(DtypeError, match=name) as e:
        gettpy.contract(p, alpha, a, b, beta, c, d)
    assert isinstance(e.value, TypeError)
    assert np.isnan(d).all()


@pytest.mark.parametrize("alpha,beta", [(2 - 1j, 0.5j), (1j, 0.0), (np.complex64(1 + 2j), 1.0)])
def test_complex_alpha_beta_on_complex_plans(alpha, beta):
    a, b, c = _arrays(np.complex128, seed=1)
    d = np.zeros((3, 5), np.complex128)
    gettpy.contract(_plan(a, b, d, c=c), alpha, a, b, beta, c, d)
    np.testing.assert_allclose(d, complex(alpha) * (a @ b) + complex(beta) * c, rtol=1e-12, atol=1e-12)


def test_numpy_scalar_and_integer_alpha_beta_accepted():
    a, b, c = _arrays(seed=2)
    d = np.zeros((3, 5))
    gettpy.contract(_plan(a, b, d, c=c), np.float32(2.0), a, b, np.int64(3), c, d)
    np.testing.assert_allclose(d, 2 * (a @ b) + 3 * c, rtol=1e-12, atol=1e-12)


def test_integer_plan_alpha_beta():
    rng = np.random.default_rng(3)
    a, b, c = (rng.integers(-5, 5, size=s).astype(np.int32) for s in ((3, 4), (4, 5), (3, 5)))
    d = np.zeros((3, 5), np.int32)
    p = _plan(a, b, d, c=c)
    gettpy.contract(p, 2, a, b, -3, c, d)
    np.testing.assert_array_equal(d, 2 * (a.astype(np.int64) @ b) - 3 * c)
    with pytest.raises(DtypeError, match="alpha"):
        gettpy.contract(p, 2.5, a, b, 0, None, d)


# ------------------------------------------------------------------------------- alpha == 0, beta == 0
@pytest.mark.parametrize("bad", [np.inf, np.nan, -np.inf])
def test_alpha_zero_reads_neither_a_nor_b(bad):
    a, b, c = _arrays(seed=4)
    a[1, 2], b[0, 0] = bad, bad
    d = np.full((3, 5), 7.0)
    p = _plan(a, b, d, c=c)
    gettpy.contract(p, 0.0, a, b, 2.0, c, d)
    np.testing.assert_allclose(d, 2 * c, rtol=1e-15)
    gettpy.contract(p, 0.0, a, b, 0.0, None, d)
    np.testing.assert_array_equal(d, np.zeros((3, 5)))
    gettpy.contract(p, 0, None, None, 0, None, d)  # A and B are not even looked at
    np.testing.assert_array_equal(d, np.zeros((3, 5)))


def test_alpha_zero_applies_op_c_and_op_d():
    a, b, c = _arrays(seed=5)
    a[0, 0] = np.nan
    d = np.zeros((3, 5))
    p = _plan(a, b, d, op_c=ops.neg, op_d=ops.relu, c=c)
    gettpy.contract(p, 0.0, a, b, 1.5, c, d)
    np.testing.assert_allclose(d, np.maximum(-1.5 * c, 0), rtol=1e-15)


def test_alpha_zero_complex_and_strided_d():
    a, b, c = _arrays(np.complex64, seed=6)
    a[0, 0] = np.inf
    d = np.zeros((5, 3), np.complex64).T  # a column-major D
    gettpy.contract(_plan(a, b, d, c=c), 0.0, a, b, 1j, c, d)
    np.testing.assert_allclose(d, 1j * c, rtol=1e-6)


def test_contraction_alpha_zero():
    a, b, c = _arrays(seed=7)
    a[:] = np.inf
    con = gettpy.Contraction("ik,kj->ij", a, b, c=c)
    np.testing.assert_allclose(con.execute(alpha=0.0, beta=3.0), 3 * c, rtol=1e-15)


def test_beta_zero_does_not_read_c():
    a, b, c = _arrays(seed=8)
    c[:] = np.nan
    d = np.zeros((3, 5))
    gettpy.contract(_plan(a, b, d, c=c), 1.0, a, b, 0.0, c, d)
    np.testing.assert_allclose(d, a @ b, rtol=1e-12)


# ------------------------------------------------------------------------------- operands that are not arrays
@pytest.mark.parametrize("slot", ["A", "B", "D"])
@pytest.mark.parametrize("bad", [None, [[1.0]], 3.0, "x"])
def test_non_array_operands_named(slot, bad):
    a, b, c = _arrays(seed=9)
    d = np.full((3, 5), -1.0)
    p = _plan(a, b, d)
    args = {"A": a, "B": b, "D": d}
    args[slot] = bad
    with pytest.raises(DtypeError, match=f"{slot} must be a numpy or CuPy array"):
        gettpy.contract(p, 1.0, args["A"], args["B"], 0.0, None, args["D"])
    assert (d == -1.0).all()


def test_c_none_with_nonzero_beta():
    a, b, _ = _arrays(seed=10)
    d = np.full((3, 5), -1.0)
    with pytest.raises(DtypeError, match="C"):
        gettpy.contract(_plan(a, b, d), 1.0, a, b, 1.0, None, d)
    assert (d == -1.0).all()


def test_contract_needs_a_plan():
    a, b, _ = _arrays()
    with pytest.raises(TypeError, match="plan"):
        gettpy.contract("plan", 1.0, a, b, 0.0, None, np.zeros((3, 5)))


@pytest.mark.parametrize("bad", [None, [[1.0, 2.0]], 5])
def test_contraction_non_array_operands(bad):
    a, _, _ = _arrays()
    with pytest.raises(DtypeError, match="Contraction: b"):
        gettpy.Contraction("ik,kj->ij", a, bad)
    with pytest.raises(DtypeError, match="Contraction: a"):
        gettpy.Contraction("ik,kj->ij", bad, a.T.copy())


def test_descriptor_of_non_array():
    with pytest.raises(DtypeError, match="TensorDescriptor.of"):
        gettpy.TensorDescriptor.of([1.0, 2.0])


# ------------------------------------------------------------------------------- bad ops
@pytest.mark.parametrize("bad", [("leaky_relu", "x"), ("leaky_relu", 1, 2), ("no_such_op",), ("scale", None),
                                 ([1],), 5, ["relu"], ("elu", True)])
def test_bad_op_specs_are_value_errors(bad):
    a, b, _ = _arrays()
    with pytest.raises(OpError) as e:
        gettpy.einsum("ik,kj->ij", a, b, ops=[bad, None])
    assert isinstance(e.value, ValueError) and "ops[0]" in str(e.value)
    with pytest.raises(OpError):
        gettpy.TensorDescriptor.of(a, bad)
    with pytest.raises(OpError):
        gettpy.Contraction("ik,kj->ij", a, b, ops=(None, bad))
    with pytest.raises(OpError):
        gettpy.einsum("ik,kj->ij", a, b, op_out=bad)


@pytest.mark.parametrize("bad", [("leaky_relu", 0.1), 5, ops.relu, [ops.relu], [None, None, None]])
def test_bad_ops_sequences_are_gettpy_type_or_value_errors(bad):
    a, b, _ = _arrays()
    with pytest.raises(GettpyError, match="ops") as e:
        gettpy.einsum("ik,kj->ij", a, b, ops=bad)
    assert isinstance(e.value, TypeError | ValueError)


def test_bad_semiring_is_a_value_error():
    a, b, _ = _arrays()
    with pytest.raises(OpError):
        gettpy.einsum("ik,kj->ij", a, b, semiring="no_such_semiring")


# ------------------------------------------------------------------------------- self-overlapping D
@pytest.mark.parametrize("strides", [(0, 1), (1, 1), (2, 1), (1, 0)])
def test_self_overlapping_d_refused_by_plan(strides):
    """A D whose distinct elements share memory is refused when planned (no contraction could write it), D
    untouched."""
    a, b, _ = _arrays()
    base = np.full(64, -2.0)
    d = np.lib.stride_tricks.as_strided(base, (3, 5), tuple(8 * s for s in strides))
    desc = gettpy.TensorDescriptor.of
    with pytest.raises(LayoutError, match="D: .*share memory"):
        gettpy.plan(desc(a), "ik", desc(b), "kj", desc(d), "ij")
    with pytest.raises(LayoutError, match="D: .*share memory"):  # (a descriptor written by hand: the same)
        gettpy.plan(desc(a), "ik", desc(b), "kj", gettpy.TensorDescriptor((3, 5), strides, "float64"), "ij")
    assert (base == -2.0).all()


def test_broadcast_d_refused_and_untouched():
    a, b, _ = _arrays()
    base = np.full(5, -2.0)
    d = np.broadcast_to(base, (3, 5))
    with pytest.raises(LayoutError, match="share memory"):
        gettpy.plan(gettpy.TensorDescriptor.of(a), "ik", gettpy.TensorDescriptor.of(b), "kj",
                    gettpy.TensorDescriptor.of(d), "ij")
    assert (base == -2.0).all()


def test_read_only_d_refused():
    a, b, _ = _arrays()
    d = np.zeros((3, 5))
    d.flags.writeable = False
    p = gettpy.plan(gettpy.TensorDescriptor.of(a), "ik", gettpy.TensorDescriptor.of(b), "kj",
                    gettpy.TensorDescriptor.of(d), "ij")
    with pytest.raises(LayoutError, match="read-only"):
        gettpy.contract(p, 1.0, a, b, 0.0, None, d)


# ------------------------------------------------------------------------------- sizes beyond 64 bits
def test_extent_2_to_80_rejected_at_once():
    t0 = time.perf_counter()
    with pytest.raises(ShapeError, match="dimension 0"):
        gettpy.TensorDescriptor((2**80,))
    assert time.perf_counter() - t0 < 1.0


def test_product_of_extents_beyond_2_to_63_rejected_at_once():
    desc = gettpy.TensorDescriptor
    t0 = time.perf_counter()
    with pytest.raises(ShapeError, match="operand C"):  # (D defaults to C)
        gettpy.plan(desc((2**40,)), "i", desc((2**40,)), "j", desc((2**40, 2**40)), "ij")
    with pytest.raises(ShapeError, match="2\\*\\*63"):  # the iteration space i x j x k
        gettpy.plan(desc((2**31, 2**21)), "ik", desc((2**21, 2**31)), "kj", desc((2**31, 2**31)), "ij")
    assert time.perf_counter() - t0 < 1.0


def test_strides_beyond_64_bit_offsets_rejected():
    desc = gettpy.TensorDescriptor
    with pytest.raises(ShapeError, match="operand A"):
        gettpy.plan(desc((2, 3), (2**62, 1)), "ik", desc((3, 4)), "kj", desc((2, 4)), "ij")


# ------------------------------------------------------------------------------- explicit paths
def test_incomplete_explicit_path_raises_like_numpy():
    x = np.ones((2, 2))
    with pytest.raises(RuntimeError):  # numpy's own kind; gettpy's errors are ValueError / TypeError kinds
        np.einsum("ij,jk,kl->", x, 2 * x, 3 * x, optimize=["einsum_path", (0, 1)])
    with pytest.raises(SubscriptError, match="uncontracted") as e:
        gettpy.einsum("ij,jk,kl->", x, 2 * x, 3 * x, optimize=["einsum_path", (0, 1)])
    assert isinstance(e.value, RuntimeError)  # numpy's kind too


@pytest.mark.parametrize("path", [["einsum_path", (0, 1, 2)], ["einsum_path", (2, 0, 1)],
                                  ["einsum_path", (1, 2), (0, 1)], ["einsum_path", [0, 2], [0, 1]],
                                  ["einsum_path", (np.int64(0), np.int64(1)), (0, 1)]])
def test_explicit_paths_including_three_index_steps(path):
    rng = np.random.default_rng(12)
    x, y, z = rng.standard_normal((2, 3)), rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    want = np.einsum("ij,jk,kl->il", x, y, z)
    np.testing.assert_allclose(gettpy.einsum("ij,jk,kl->il", x, y, z, optimize=path), want, rtol=1e-12)


def test_four_operands_with_a_three_index_step():
    rng = np.random.default_rng(13)
    ops_ = [rng.standard_normal(s) for s in ((2, 3), (3, 4), (4, 5), (5, 2))]
    want = np.einsum("ij,jk,kl,lm->im", *ops_)
    got = gettpy.einsum("ij,jk,kl,lm->im", *ops_, optimize=["einsum_path", (1, 2, 3), (0, 1)])
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("path,needle", [
    (["einsum_path", (0, 3), (0, 1)], "operand 3"),
    (["einsum_path", (0, -1), (0, 1)], "operand -1"),
    (["einsum_path", (1, 1), (0, 1)], "repeats"),
    (["einsum_path", (0, 1), (0, 1), (0, 1)], "only 1"),
    (["einsum_path", ()], "empty"),
    (["einsum_path", 0, 1], "not a tuple"),
    (["einsum_path", ("a", "b")], "not a tuple"),
])
def test_malformed_explicit_paths(path, needle):
    x = np.ones((2, 2))
    with pytest.raises(SubscriptError, match=needle):
        gettpy.einsum("ij,jk,kl->", x, x, x, optimize=path)


def test_explicit_path_for_two_operands_checked():
    x = np.ones((2, 2))
    np.testing.assert_allclose(gettpy.einsum("ij,jk->ik", x, x, optimize=["einsum_path", (0, 1)]), 2 * x)
    with pytest.raises(SubscriptError):
        gettpy.einsum("ij,jk->ik", x, x, optimize=["einsum_path", (0, 2)])


# ------------------------------------------------------------------------------- TensorDescriptor
def test_default_strides_are_column_major_and_documented():
    d = gettpy.TensorDescriptor((3, 4, 5), dtype="float64")
    assert d.strides == (1, 3, 12)
    doc = gettpy.TensorDescriptor.__doc__
    assert "TensorDescriptor.of" in doc and "column-major" in doc and "(1, 3, 12)" in doc


def test_row_major_array_on_default_descriptor_names_operand_and_stride():
    a, b, _ = _arrays()
    d = np.zeros((3, 5))
    desc = gettpy.TensorDescriptor
    p = gettpy.plan(desc((3, 4), dtype="float64"), "ik", desc.of(b), "kj", desc.of(d), "ij")
    with pytest.raises(LayoutError) as e:
        gettpy.contract(p, 1.0, a, b, 0.0, None, d)
    msg = str(e.value)
    assert msg.startswith("A: dimension 0 has element stride 4 but the plan's descriptor has 1")
    assert "row-major" in msg and "TensorDescriptor.of" in msg
    assert not d.any()
    p = gettpy.plan(desc.of(a), "ik", desc.of(b), "kj", desc.of(d), "ij")  # the documented way
    gettpy.contract(p, 1.0, a, b, 0.0, None, d)
    np.testing.assert_allclose(d, a @ b, rtol=1e-12)


def test_descriptor_rejects_non_integer_extents():
    with pytest.raises(ShapeError):
        gettpy.TensorDescriptor((2.5, 3))
    with pytest.raises(ShapeError):
        gettpy.TensorDescriptor((2, 3), strides=(1, "3"))


def test_errors_are_builtin_kinds():
    for cls in (DtypeError, OpError, ShapeError, LayoutError, SubscriptError):
        assert issubclass(cls, GettpyError) and issubclass(cls, TypeError | ValueError)


def test_empty_output_through_the_plan_api():
    """A D of no elements (numpy gives it zero strides) is not an overlapping output: contract and Contraction
    return it empty, as numpy does."""
    a, b, d = np.ones((16, 3)), np.ones((3, 0)), np.empty((16, 0))
    p = gettpy.plan(gettpy.TensorDescriptor.of(a), "ik", gettpy.TensorDescriptor.of(b), "kj",
                    gettpy.TensorDescriptor.of(d), "ij")
    assert gettpy.contract(p, 1.0, a, b, 0.0, None, d).shape == (16, 0)
    r = gettpy.Contraction("ik,kj->ij", np.ones((0, 4)), np.ones((4, 2))).execute()
    assert r.shape == (0, 2) and r.shape == np.einsum("ik,kj->ij", np.ones((0, 4)), np.ones((4, 2))).shape


@pytest.mark.parametrize("dtype,in_ops,op_out", [
    (np.int64, ["sigmoid", None], None), (np.int32, [None, ops.scale(0.5)], None), (np.bool_, ["neg", None], None),
    (np.uint8, None, ops.leaky_relu(0.1)), (np.complex128, ["relu", None], None), (np.complex64, None, "sigmoid"),
])
def test_ops_the_type_cannot_take_are_refused(dtype, in_ops, op_out):
    """Integer and bool contractions take no built-in op whose values are not integers (a sigmoid's values would
    be truncated back to integers), and complex ones no op undefined on complex values: an OpError (a
    ValueError) naming the op, out untouched."""
    x = (np.arange(6).reshape(2, 3) - 3).astype(dtype)
    out = np.full(2, 7, dtype)
    before = out.copy()
    with pytest.raises(OpError, match="ops\\[|op_out") as e:
        gettpy.einsum("ij,ij->i", x, x, ops=in_ops, op_out=op_out, out=out)
    assert isinstance(e.value, ValueError) and (out == before).all()


def test_integer_ops_and_complex_ops_still_run():
    """Integer-valued ops run on integers (neg, relu, square, scale by an integer); ops defined on complex
    values run on complex operands."""
    i = np.arange(6).reshape(2, 3) - 3
    got = gettpy.einsum("ij,ij->i", i, i, ops=["neg", ops.scale(3)], op_out="relu")
    assert (got == np.maximum(np.einsum("ij,ij->i", -i, 3 * i), 0)).all()
    c = np.arange(6).reshape(2, 3) + 1j
    np.testing.assert_allclose(gettpy.einsum("ij,ij->i", c, c, ops=["conj", "neg"]),
                               np.einsum("ij,ij->i", np.conj(c), -c), rtol=1e-12)
