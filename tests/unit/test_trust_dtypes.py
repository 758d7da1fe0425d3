"""Dtype resolution (gettpy.dtypes): numpy's promotion over every operand, `out` and `dtype=`, complex kept
until the final cast, accumulation as wide as the output, integer and bool einsum with numpy's result types
and wrap-around, and plan identity covering the ops' and semirings' numpy twins. References: numpy.einsum
itself (for result types, casting errors and integer values) and numpy in float64 / complex128."""
from __future__ import annotations

import numpy as np
import pytest

import gettpy
from gettpy import dtypes, ops
from gettpy.errors import DtypeError


def _close(got, want, rtol=1e-12, atol=1e-12):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)


# ------------------------------------------------------------------------------- complex never dropped early
def test_complex_inputs_into_real_out_unsafe_match_numpy():
    a = np.array([1j])
    out = np.zeros(())
    got = gettpy.einsum("i,i->", a, a, out=out, casting="unsafe")
    with np.errstate(all="ignore"), pytest.warns(np.exceptions.ComplexWarning):
        want = np.einsum("i,i->", a, a, out=np.zeros(()), casting="unsafe")
    assert float(want) == -1.0
    assert got is out and float(out) == -1.0


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
def test_complex_matrix_into_real_out_unsafe():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    b = rng.standard_normal((4, 5)) + 1j * rng.standard_normal((4, 5))
    out = np.zeros((3, 5))
    gettpy.einsum("ij,jk->ik", a, b, out=out, casting="unsafe")
    _close(out, (a @ b).real)


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
def test_plan_contract_complex_inputs_real_d():
    a = np.array([[1j, 2.0]])
    b = np.array([[1j], [1.0]])
    d = np.zeros((1, 1))
    desc = gettpy.TensorDescriptor.of
    p = gettpy.plan(desc(a), "ik", desc(b), "kj", desc(d), "ij")
    gettpy.contract(p, 1.0, a, b, 0.0, None, d)
    assert d[0, 0] == (a @ b).real[0, 0] == 1.0


@pytest.mark.parametrize("ta", [np.float32, np.float16], ids=["f32", "f16"])
def test_contraction_mixed_real_complex_uses_all_operands(ta):
    a = np.ones((2, 2), ta)
    b = np.full((2, 2), 1j, np.complex64)
    got = gettpy.Contraction("ij,jk->ik", a, b).execute()
    assert got.dtype == np.complex64
    _close(got, np.full((2, 2), 2j), rtol=1e-6)
    got = gettpy.Contraction("ij,jk->ik", b, a).execute()
    _close(got, np.full((2, 2), 2j), rtol=1e-6)


def test_plan_mixed_real_complex_descriptors():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = (rng.standard_normal((4, 2)) + 1j * rng.standard_normal((4, 2))).astype(np.complex64)
    d = np.zeros((3, 2), np.complex64)
    desc = gettpy.TensorDescriptor.of
    p = gettpy.plan(desc(a), "ik", desc(b), "kj", desc(d), "ij")
    gettpy.contract(p, 2.0, a, b, 0.0, None, d)
    _close(d, 2 * (a.astype(np.complex128) @ b.astype(np.complex128)), rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------------------- accumulation as wide as D
@pytest.mark.parametrize("subs,shapes", [("ik,kj->ij", [(4, 8192), (8192, 4)]), ("k,k->", [(65536,), (65536,)]),
                                         ("ik,k->i", [(2, 100000), (100000,)])])
@pytest.mark.parametrize("narrow,wide", [(np.complex64, np.complex128), (np.float32, np.float64)])
def test_split_k_into_wider_output_loses_nothing(subs, shapes, narrow, wide):
    """Long sums (the planner splits K) of narrow inputs into a wide output accumulate in the wide type."""
    rng = np.random.default_rng(11)
    arrs = []
    for s in shapes:
        x = 1 + rng.random(s) * 2**-10
        if np.dtype(narrow).kind == "c":
            x = x + 1j * (1 + rng.random(s) * 2**-10)
        arrs.append(x.astype(narrow))
    want = np.einsum(subs, *[x.astype(wide) for x in arrs])
    out = np.zeros(want.shape, wide)
    gettpy.einsum(subs, *arrs, out=out)
    _close(out, want, rtol=1e-13, atol=0)


def test_float32_inputs_float64_out_accumulate_in_float64():
    a = np.array([1.0, 2.0**-30, -1.0], np.float32)
    out = np.zeros((), np.float64)
    gettpy.einsum("i,i->", a, np.ones(3, np.float32), out=out)
    assert float(out) == 2.0**-30


# ------------------------------------------------------------------------------- numpy's result types
DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
          np.float16, np.float32, np.float64, np.complex64, np.complex128]


def _operand(dt, shape, rng):
    if np.dtype(dt).kind == "b":
        return rng.random(shape) < 0.5
    if np.dtype(dt).kind in "iu":
        return rng.integers(0, 5, size=shape).astype(dt)
    x = rng.integers(-3, 4, size=shape).astype(np.float64)
    if np.dtype(dt).kind == "c":
        x = x + 1j * rng.integers(-3, 4, size=shape)
    return x.astype(dt)


@pytest.mark.parametrize("ta", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("tb", [np.bool_, np.int8, np.uint32, np.int64, np.float16, np.float32, np.complex64],
                         ids=lambda d: np.dtype(d).name)
def test_pairs_match_numpy_type_and_value(ta, tb):
    rng = np.random.default_rng(3)
    a, b = _operand(ta, (3, 4), rng), _operand(tb, (4, 2), rng)
    want = np.einsum("ij,jk->ik", a, b)
    got = gettpy.einsum("ij,jk->ik", a, b)
    assert got.dtype == want.dtype
    _close(got, want, rtol=1e-3 if want.dtype == np.float16 else 1e-6)


@pytest.mark.parametrize("dt", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64])
def test_integer_overflow_wraps_as_numpy(dt):
    info = np.iinfo(dt)
    a = np.array([info.max, info.max // 3, 7], dt)
    b = np.array([3, 5, info.max], dt)
    for subs, x, y in (("i,i->", a, b), ("i,j->ij", a, b), ("i,i->i", a, b)):
        with np.errstate(over="ignore"):
            want = np.einsum(subs, x, y)
        got = gettpy.einsum(subs, x, y)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_int8_known_wrap_values():
    x, y = np.full(100, 100, np.int8), np.ones(100, np.int8)
    assert gettpy.einsum("i,i->", x, y) == np.int8(16)
    a, b = np.array([100, 100], np.int8), np.array([100, 1], np.int8)
    assert gettpy.einsum("i,i->", a, b, out=np.zeros((), np.int64)) == 10100  # numpy computes in out's type
    got = gettpy.einsum("i,i->", a, b, dtype=np.int8, out=np.zeros((), np.int64), casting="unsafe")
    assert got == np.einsum("i,i->", a, b, dtype=np.int8, out=np.zeros((), np.int64), casting="unsafe") == 116


def test_bool_is_or_of_ands():
    rng = np.random.default_rng(2)
    a, b, c = rng.random((4, 5)) < 0.3, rng.random((5, 3)) < 0.3, rng.random((3, 2)) < 0.5
    for subs, ops_ in (("ij,jk->ik", (a, b)), ("ij,jk,kl->il", (a, b, c)), ("ij->", (a,)), ("ij,jk->", (a, b))):
        want = np.einsum(subs, *ops_)
        got = gettpy.einsum(subs, *ops_)
        assert got.dtype == want.dtype == np.bool_
        np.testing.assert_array_equal(got, want)
    want = np.einsum("ij,jk->ik", a, b, out=np.zeros((4, 3), np.int64))  # computes in int64: counts
    np.testing.assert_array_equal(gettpy.einsum("ij,jk->ik", a, b, out=np.zeros((4, 3), np.int64)), want)


def test_integer_chain_into_wider_out_matches_numpy():
    rng = np.random.default_rng(9)
    a, b, c = (rng.integers(0, 120, size=s).astype(np.int8) for s in ((3, 4), (4, 5), (5, 2)))
    out = np.zeros((3, 2), np.int64)
    want = np.einsum("ij,jk,kl->il", a, b, c, out=np.zeros((3, 2), np.int64))
    np.testing.assert_array_equal(gettpy.einsum("ij,jk,kl->il", a, b, c, out=out), want)
    with np.errstate(over="ignore"):
        want8 = np.einsum("ij,jk,kl->il", a, b, c)
    np.testing.assert_array_equal(gettpy.einsum("ij,jk,kl->il", a, b, c), want8)


@pytest.mark.parametrize("scalar", [2, 2.5, True, 1j])
@pytest.mark.parametrize("dt", [np.float32, np.int8, np.float16])
def test_python_scalars_promote_as_numpy_einsum(scalar, dt):
    x = np.arange(3).astype(dt)
    want = np.einsum(",i->i", scalar, x)
    got = gettpy.einsum(",i->i", scalar, x)
    assert got.dtype == want.dtype
    _close(got, want)


CASTS = [  # (input dtypes, dtype=, out dtype, casting)
    ((np.float64, np.float64), None, np.float32, "safe"),
    ((np.float64, np.float64), None, np.float32, "same_kind"),
    ((np.float32, np.float32), np.float32, np.float64, "safe"),
    ((np.float32, np.float32), np.float32, np.float64, "same_kind"),
    ((np.float64, np.float64), np.float32, np.float16, "same_kind"),
    ((np.float64, np.float64), np.float32, np.complex128, "same_kind"),
    ((np.float64, np.float64), np.float32, np.complex128, "unsafe"),
    ((np.int64, np.int64), None, np.float64, "safe"),
    ((np.int64, np.int64), None, np.float32, "safe"),
    ((np.int64, np.int64), None, np.float32, "same_kind"),
    ((np.float32, np.float32), None, np.int32, "unsafe"),
    ((np.complex128, np.complex128), np.float64, None, "unsafe"),
    ((np.complex128, np.complex128), np.float64, None, "safe"),
    ((np.complex64, np.float64), None, np.complex64, "same_kind"),
    ((np.float16, np.float16), np.float32, None, "safe"),
    ((np.float16, np.float16), None, np.float32, "safe"),
    ((np.int8, np.uint8), None, None, "safe"),
    ((np.uint64, np.int64), None, None, "safe"),
    ((np.bool_, np.float16), None, np.int8, "unsafe"),
]


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("ins,dtype,out_dt,casting", CASTS)
def test_out_dtype_casting_as_numpy(ins, dtype, out_dt, casting):
    """Both raise (gettpy a DtypeError, a TypeError) or both give the same type and value."""
    rng = np.random.default_rng(4)
    a, b = _operand(ins[0], (3, 4), rng), _operand(ins[1], (4,), rng)
    kw = {"casting": casting}
    if dtype is not None:
        kw["dtype"] = dtype
    try:
        want = np.einsum("ij,j->i", a, b, **kw, **({"out": np.zeros(3, out_dt)} if out_dt else {}))
    except TypeError:
        out = None if out_dt is None else np.full(3, 7, out_dt)
        with pytest.raises(DtypeError):
            gettpy.einsum("ij,j->i", a, b, **kw, **({"out": out} if out is not None else {}))
        if out is not None:
            assert (out == 7).all()
        return
    got = gettpy.einsum("ij,j->i", a, b, **kw, **({"out": np.zeros(3, out_dt)} if out_dt else {}))
    assert got.dtype == want.dtype
    _close(got, want, rtol=1e-3)


def test_half_inputs_float32_out_keep_mixed_mode():
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((8, 64)).astype(np.float16), rng.standard_normal((64, 8)).astype(np.float16)
    r = dtypes.resolve([a.dtype, b.dtype], np.float32)
    assert (r.inputs, r.output, r.stage) == ("f16", "f32", None)
    got = gettpy.einsum("ik,kj->ij", a, b, dtype=np.float32)
    assert got.dtype == np.float32
    _close(got, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-5)  # f32 accuracy, not f16's


# ------------------------------------------------------------------------------- the resolver's pieces
def test_promote_and_compute_of():
    assert dtypes.promote("f32", "c64") == "c64"
    assert dtypes.promote("f16", "c64") == "c64"
    assert dtypes.promote("i8", "u8") == "i16"
    assert dtypes.promote("u64", "i64") == "f64"
    assert dtypes.promote("bf16", "bf16") == "bf16"
    assert dtypes.promote("bf16", "f16") == "f32"
    assert dtypes.promote("b1", "b1") == "b1"
    assert dtypes.compute_of("c64", "c64", None, "c128") == "c128"
    assert dtypes.compute_of("f32", "f32", None, "f64") == "f64"
    assert dtypes.compute_of("c128", "c128", None, "f64") == "c128"
    assert dtypes.compute_of("f16", "f16", None, "f16") == "f32"
    assert dtypes.compute_of("i8", "i8", None, "i8") == "i64"
    assert dtypes.compute_of("u8", "u8", None, "u16") == "u64"
    assert dtypes.compute_of("b1", "b1", None, "b1") == "b1"


def test_exact_kinds():
    assert [s for s in dtypes.ITEMSIZE if dtypes.is_exact(s)] == ["i8", "i16", "i32", "i64", "u8", "u16", "u32",
                                                                  "u64", "b1"]


def test_gpu_dtype_hook():
    assert {"f16", "bf16", "f32", "f64", "c64", "c128"} <= dtypes.GPU_DTYPES
    for s in ("f32", "c128"):
        dtypes.check_gpu(s, "x")
    for s, name in (("i32", "int32"), ("b1", "bool"), ("u8", "uint8")):
        if s in dtypes.GPU_DTYPES:
            continue  # (a GPU integer kernel has been added)
        with pytest.raises(DtypeError, match=f"x: dtype {name} has no GPU kernel"):
            dtypes.check_gpu(s, "x")


def test_semiring_refuses_integers():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    with pytest.raises(DtypeError, match="semiring"):
        gettpy.einsum("ij,jk->ik", a, a.T.copy(), semiring="max_plus")


def test_unsupported_dtypes_still_refused():
    with pytest.raises(DtypeError, match="object"):
        gettpy.einsum("i,i->", np.array([1.0], dtype=object), np.ones(1))
    with pytest.raises(DtypeError):
        gettpy.einsum("i,i->", np.array(["a"]), np.ones(1))


# ------------------------------------------------------------------------------- plan identity and twins
def test_custom_ops_with_same_cuda_different_twins_do_not_share_a_plan():
    a = np.ones((3, 3))
    o2 = ops.custom("x * 2", numpy=lambda v: 2 * v)
    o3 = ops.custom("x * 2", numpy=lambda v: 3 * v)
    assert o2 != o3
    assert gettpy.einsum("ij,jk->ik", a, a, ops=[o2, None])[0, 0] == 6.0
    assert gettpy.einsum("ij,jk->ik", a, a, ops=[o3, None])[0, 0] == 9.0
    desc = gettpy.TensorDescriptor.of
    d = np.zeros((3, 3))
    gettpy.contract(gettpy.plan(desc(a, o2), "ij", desc(a), "jk", desc(d), "ik"), 1.0, a, a, 0.0, None, d)
    assert d[0, 0] == 6.0
    gettpy.contract(gettpy.plan(desc(a, o3), "ij", desc(a), "jk", desc(d), "ik"), 1.0, a, a, 0.0, None, d)
    assert d[0, 0] == 9.0


def test_builtin_ops_still_share_plans():
    assert ops.leaky_relu(0.1) == ops.leaky_relu(0.1)
    assert hash(ops.scale(2.0)) == hash(ops.scale(2.0))
    assert ops.leaky_relu(0.1) != ops.leaky_relu(0.2)


def test_semirings_with_same_cuda_different_twins_do_not_share_a_plan():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    b = np.arange(12, dtype=np.float64).reshape(3, 4)
    s1 = ops.semiring("(a > b ? a : b)", "(x + y)", -np.inf, 0.0, np.maximum, lambda x, y: x + y)
    s2 = ops.semiring("(a > b ? a : b)", "(x + y)", -np.inf, 0.0, np.maximum, lambda x, y: x * y)
    assert s1 != s2
    r1 = gettpy.einsum("ij,jk->ik", a, b, semiring=s1)
    r2 = gettpy.einsum("ij,jk->ik", a, b, semiring=s2)
    np.testing.assert_array_equal(r1, (a[:, :, None] + b[None]).max(axis=1))
    np.testing.assert_array_equal(r2, (a[:, :, None] * b[None]).max(axis=1))


@pytest.mark.parametrize("dt", [np.int8, np.uint16, np.int64, np.bool_])
@pytest.mark.parametrize("subs,shapes", [("ik,kj->ij", [(4, 8192), (8192, 4)]), ("k,k->", [(65536,), (65536,)])])
def test_integer_and_bool_long_sums_match_numpy(dt, subs, shapes):
    """Long sums (the planner splits K and sums the slices) wrap into the result type as numpy's."""
    rng = np.random.default_rng(14)
    arrs = [(rng.random(s) < 1e-4 if dt is np.bool_ else rng.integers(0, 120, size=s)).astype(dt) for s in shapes]
    with np.errstate(over="ignore"):
        want = np.einsum(subs, *arrs)
    got = gettpy.einsum(subs, *arrs)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("a_t,b_t,d_t", [(np.float64, np.float64, np.int64), (np.float32, np.int8, np.int32),
                                         (np.uint64, np.int64, np.uint64), (np.complex64, np.float32, np.int16),
                                         (np.int64, np.int64, np.bool_), (np.float16, np.float16, np.bool_)])
def test_plan_refuses_a_d_of_a_narrower_kind_than_the_result(a_t, b_t, d_t):
    """A floating or complex result (uint64 with int64 promotes to float64) into an integer D, or any non-bool
    result into a bool D, is refused when planned, naming D's type, as numpy's same_kind casting refuses the cast
    that would truncate; the same through Contraction."""
    a, b, d = np.ones((2, 3), a_t), np.ones((3, 4), b_t), np.zeros((2, 4), d_t)
    desc = gettpy.TensorDescriptor.of
    with pytest.raises(DtypeError, match=f"D's type {np.dtype(d_t).name}"):
        gettpy.plan(desc(a), "ik", desc(b), "kj", desc(d), "ij")
    with pytest.raises(DtypeError, match="cannot hold"):
        gettpy.Contraction("ik,kj->ij", a, b, out=d).execute()
    assert not d.any()


def test_plan_warns_once_planned_where_a_complex_result_goes_into_a_real_d():
    a, b, d = np.ones((2, 3), np.complex128), np.ones((3, 4)), np.zeros((2, 4))
    desc = gettpy.TensorDescriptor.of
    with pytest.warns(np.exceptions.ComplexWarning, match="discards the imaginary part"):
        p = gettpy.plan(desc(a), "ik", desc(b), "kj", desc(d), "ij")
    gettpy.contract(p, 1.0, a * (2 + 1j), b, 0.0, None, d)
    assert np.array_equal(d, np.full((2, 4), 6.0))
