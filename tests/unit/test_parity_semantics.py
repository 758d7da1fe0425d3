"""numpy parity of einsum's semantics: views, numpy scalars, `out=` with `casting`, `order=`, the sublist
form's numpy integers, bytes subscripts, Python scalars and lists, `tensordot` and `pad`/`unpad` on numpy
arrays. numpy itself is the reference of every row.
"""
from __future__ import annotations

import random
import re
import warnings

import numpy as np
import pytest

import gettpy


def _ints_supported() -> bool:
    try:
        gettpy.einsum("i,i->", np.arange(3), np.arange(3))
    except TypeError:
        return False
    return True


needs_int = pytest.mark.skipif(not _ints_supported(), reason="integer einsum is not in this build")

# --- views: a one-operand einsum that sums nothing is a view of its operand, as in numpy
VIEWS = [
    ("pass_through", ("ij->ij",), (2, 3)),
    ("implicit_pass_through", ("ij",), (2, 3)),
    ("ellipsis", ("...",), (2, 3)),
    ("transpose", ("ij->ji",), (2, 3)),
    ("implicit_transpose", ("ji",), (2, 3)),
    ("diagonal", ("ii->i",), (3, 3)),
    ("triple_diagonal", ("iii->i",), (3, 3, 3)),
    ("batched_diagonal", ("...ii->...i",), (2, 3, 3)),
    ("leading_diagonal", ("ii...->...i",), (3, 3, 2)),
    ("diagonal_first", ("...ii->i...",), (2, 3, 3)),
    ("diagonal_and_transpose", ("jii->ij",), (2, 3, 3)),
    ("split_diagonal", ("i...i->...i",), (3, 2, 3)),
    ("swap_axes", ("ijk->jik",), (2, 3, 4)),
    ("sublist_diagonal", ([0, 0], [0]), (3, 3)),
    ("sublist_numpy_ints", ([np.int64(1), np.int32(0)], [np.int16(0), np.uint8(1)]), (2, 3)),
    ("sublist_ndarray", (np.array([0, 0]), np.array([0])), (3, 3)),
    ("sublist_ellipsis", ([Ellipsis, 0, 0], [0, Ellipsis]), (2, 3, 3)),
]


def _call(lib, a, spec):
    if isinstance(spec[0], str):
        return lib.einsum(spec[0], a)
    return lib.einsum(a, *spec)


@pytest.mark.parametrize("dtype", [np.float64, np.complex64, np.int32, np.bool_], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("spec,shape", [pytest.param(s, sh, id=i) for i, s, sh in VIEWS])
def test_views(spec, shape, dtype):
    base = np.arange(1, 1 + 2 * int(np.prod(shape))).astype(dtype)
    a = base[::2].reshape(shape)  # a strided view: the view must follow its real strides
    want = _call(np, a, spec)
    got = _call(gettpy, a, spec)
    assert got.base is a.base and got.dtype == a.dtype
    assert got.shape == want.shape and got.strides == want.strides
    np.testing.assert_array_equal(got, want)
    got[...] = np.zeros((), dtype)  # writes go through to the operand, as numpy's
    assert not np.any(want)


def test_issue_diagonal_view_writes_operand():
    a = np.arange(1.0, 10.0).reshape(3, 3)
    gettpy.einsum("ii->i", a)[:] = 0
    np.testing.assert_array_equal(a, [[0, 2, 3], [4, 0, 6], [7, 8, 0]])


def test_view_of_read_only_operand_is_read_only():
    a = np.arange(6.0).reshape(2, 3)
    assert gettpy.einsum("...", a).flags.writeable
    a.flags.writeable = False
    v = gettpy.einsum("ij->ji", a)
    assert not v.flags.writeable and np.shares_memory(v, a)


@pytest.mark.parametrize("kw,dtype,strides", [
    pytest.param({"dtype": np.float32, "casting": "same_kind"}, np.float32, (4, 12), id="dtype_copies_in_K_layout"),
    pytest.param({"order": "C"}, np.float64, (16, 8), id="order_C_copies"),
    pytest.param({"order": "F"}, np.float64, None, id="order_F_is_the_transpose_view"),
    pytest.param({"out": "alloc"}, np.float64, (16, 8), id="out_copies"),
])
def test_view_becomes_copy_when_asked(kw, dtype, strides):
    """A dtype other than the operand's gives a copy (numpy would hand back the operand's own type)."""
    a = np.arange(6.0).reshape(2, 3)
    if kw.get("out") == "alloc":
        kw = {"out": np.zeros((3, 2))}
    got = gettpy.einsum("ij->ji", a, **kw)
    np.testing.assert_array_equal(got, a.T.astype(dtype))
    assert got.dtype == dtype
    if strides is None:
        assert got.base is a.base and got.strides == a.T.strides
    else:
        assert not np.shares_memory(got, a) and got.strides == strides


# --- 0-d results: numpy scalars, as np.einsum (0-d arrays where numpy's optimized path ends in a matmul:
#     test_parity_zero_d.py); `out` comes back as itself
@pytest.mark.parametrize("optimize", [True, False])
@pytest.mark.parametrize("subscripts,shapes", [
    ("i,i", [(4,), (4,)]), ("i->", [(5,)]), ("ij,ij->", [(2, 3), (2, 3)]), ("ii", [(3, 3)]),
    ("i,i,i->", [(3,), (3,), (3,)]), (",", [(), ()]),
])
def test_zero_d_results_as_numpy(subscripts, shapes, optimize):
    xs = [np.linspace(0.5, 2.0, int(np.prod(s))).reshape(s) for s in shapes]
    got = gettpy.einsum(subscripts, *xs, optimize=optimize)
    want = np.einsum(subscripts, *xs, optimize=optimize)
    assert type(got) is type(want) and np.ndim(got) == 0
    assert optimize or isinstance(got, np.float64)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_zero_d_out_is_returned():
    out = np.zeros(())
    r = gettpy.einsum("i,i->", np.ones(7), np.ones(7), out=out, optimize="optimal")
    assert r is out and out == 7.0


@pytest.mark.parametrize("out_dtype", [np.bool_, np.int8, np.int64])
@pytest.mark.parametrize("eq,arrays", [
    ("i->", [np.array([200, 56], np.uint8)]),
    ("i,i->", [np.full(2, 16, np.uint8), np.full(2, 16, np.uint8)]),
    ("i,i,i->", [np.full(2, 16, np.uint8), np.full(2, 16, np.uint8), np.ones(2, np.uint8)]),
    ("ij->i", [np.array([[200, 56], [1, 2]], np.uint8)]),
    ("ij,j->i", [np.array([[-30000, -30000], [3, 4]], np.int16), np.full(2, 2, np.int16)]),
], ids=["sum", "dot", "chain", "rows", "int16"])
def test_integer_sums_wrap_before_the_cast_into_out(eq, arrays, out_dtype):
    """numpy sums in the computation's type (the operands' and out's), wrapping, and then casts into out: a
    uint8 sum of 256 is 0, so a bool out gets False (the accumulator's 256 would give True)."""
    want = np.zeros(np.einsum(eq, *arrays).shape, out_dtype)
    np.einsum(eq, *arrays, out=want, casting="unsafe")
    got = np.ones_like(want)
    gettpy.einsum(eq, *arrays, out=got, casting="unsafe")
    assert got.dtype == want.dtype and (got == want).all(), (got, want)


@pytest.mark.parametrize("optimize", ["optimal", True, False])
def test_casting_refuses_a_value_out_would_change(optimize):
    """An int64 `out` for a float sum of 2.52: refused under the default casting='safe' with any `optimize`
    (numpy's optimized path would store 2 unchecked; README and docstring say so), `out` untouched; with
    casting='unsafe' it receives numpy's value, the float sum truncated (7 x 0.36 = 2.52 -> 2)."""
    a = np.full(7, 0.6)
    out = np.array(5)
    with pytest.raises(TypeError, match="casting='safe'"):
        gettpy.einsum("i,i->", a, a, out=out, optimize=optimize)
    assert out == 5  # (untouched)
    r = gettpy.einsum("i,i->", a, a, out=out, optimize=optimize, casting="unsafe")
    assert r is out and out == np.einsum("i,i->", a, a, out=np.array(0), casting="unsafe") == 2


@pytest.mark.parametrize("eq,arrays,out_dtype,want", [
    ("i,i->", [np.ones(7), np.ones(7)], np.int64, 7),                                  # (a 0-d out: numpy gh-31350)
    ("ij,j->i", [np.full((3, 4), 0.5), np.full(4, 2.0)], np.int32, [4, 4, 4]),
    ("i,i->i", [np.array([0.5, np.nan]), np.ones(2)], np.float16, [0.5, np.nan]),       # (NaN is kept by a float)
])
def test_optimized_path_casts_exact_results_into_out(eq, arrays, out_dtype, want):
    """numpy's optimized path writes into an `out` that casting='safe' refuses; gettpy takes that cast where every
    value survives it, as numpy's values, and with optimize=False refuses it as numpy does."""
    out = np.zeros(np.shape(want), out_dtype)
    assert gettpy.einsum(eq, *arrays, out=out, optimize="optimal") is out
    ref = np.zeros_like(out)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        np.einsum(eq, *arrays, out=ref, optimize="optimal")
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_array_equal(out, np.asarray(want, out_dtype))
    with pytest.raises(TypeError):
        np.einsum(eq, *arrays, out=np.zeros_like(out), optimize=False)
    with pytest.raises(TypeError, match="casting='safe'"):
        gettpy.einsum(eq, *arrays, out=np.zeros_like(out), optimize=False)


@pytest.mark.parametrize("eq,arrays,out_dtype,at", [
    ("i,i->i", [np.array([1.0, np.nan]), np.ones(2)], np.int64, "(1,)"),               # (NaN into an integer)
    ("i,i->i", [np.array([1 + 0j, 2 + 1j]), np.ones(2)], np.float32, "(1,)"),          # (an imaginary part)
    ("i,i->i", [np.array([1.0, 3e5]), np.ones(2)], np.float16, "(1,)"),                # (out of float16's range)
    ("ij,j->i", [np.array([[1.0, 2.0], [300.0, 1.0]]), np.ones(2)], np.int8, "(1,)"),  # (out of int8's range)
])
def test_optimized_path_refuses_a_changed_value(eq, arrays, out_dtype, at):
    """Where numpy's optimized path would store a changed value (truncated, wrapped, inf, the imaginary part
    dropped), gettpy raises a DtypeError (a TypeError) that names the element, and `out` is untouched."""
    out = np.full(2, 5, out_dtype)
    with pytest.raises(TypeError, match=re.escape(f"at {at}")):
        gettpy.einsum(eq, *arrays, out=out, optimize=True)
    assert (out == 5).all()


# --- out= with casting: dtype= is the computation's type, out receives it under `casting`
OUT_CASTS = [
    ("f64_into_f32_same_kind", np.float64, np.float32, "same_kind"),
    ("f64_into_f32_unsafe", np.float64, np.float32, "unsafe"),
    ("f32_into_f64_same_kind", np.float32, np.float64, "same_kind"),
    ("f64_into_int64_unsafe", np.float64, np.int64, "unsafe"),
    ("f64_into_int8_unsafe", np.float64, np.int8, "unsafe"),
    ("c128_into_f64_unsafe", np.complex128, np.float64, "unsafe"),
]


@pytest.mark.parametrize("dtype,out_dtype,casting", [pytest.param(*c[1:], id=c[0]) for c in OUT_CASTS])
def test_out_receives_dtype_result_under_casting(dtype, out_dtype, casting):
    a = (np.arange(12.0).reshape(4, 3) * (1j if np.dtype(dtype).kind == "c" else 1)).astype(dtype)
    b = (np.arange(3.0) * (1j if np.dtype(dtype).kind == "c" else 1)).astype(dtype)
    out = np.full(4, 99, dtype=out_dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        r = gettpy.einsum("ij,j->i", a, b, out=out, dtype=dtype, casting=casting)
    want = np.zeros(4, dtype=out_dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)  # numpy's note on dropping the imaginary part
        np.einsum("ij,j->i", a, b, out=want, dtype=dtype, casting=casting)
    assert r is out
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("in_dtype,dtype,out_dtype,casting", [
    (np.float64, np.float64, np.float32, "safe"),
    (np.float32, np.float32, np.float64, "safe"),  # numpy reads out in dtype= too: both ways must be safe
    (np.complex128, np.complex128, np.float64, "same_kind"),
    (np.float64, np.float64, np.int64, "same_kind"),
])
def test_out_refused_under_casting_is_untouched(in_dtype, dtype, out_dtype, casting):
    a, b = np.ones((3, 2), in_dtype), np.ones(2, in_dtype)
    out = np.full(3, 5, out_dtype)
    with pytest.raises(TypeError):
        np.einsum("ij,j->i", a, b, out=out, dtype=dtype, casting=casting)
    with pytest.raises(TypeError):
        gettpy.einsum("ij,j->i", a, b, out=out, dtype=dtype, casting=casting)
    assert (out == 5).all()


def test_out_with_dtype_on_strided_out():
    a, b = np.arange(12.0).reshape(3, 4), np.arange(20.0).reshape(4, 5)
    holder = np.zeros((5, 6), np.float32)
    out = holder[:, ::2].T  # (3, 5), neither C nor F
    gettpy.einsum("ij,jk->ik", a, b, out=out, dtype=np.float64, casting="same_kind")
    np.testing.assert_array_equal(out, (a @ b).astype(np.float32))
    assert (holder[:, 1::2] == 0).all()


# --- order=: the result's layout
def _layouts(rng_seed=0, n=120):
    """(subscripts, operands) with operands in random axis orders, for the order='K' comparison."""
    rnd = random.Random(rng_seed)
    rows = []
    while len(rows) < n:
        ext = {m: rnd.choice([2, 3, 4]) for m in "abcde"}
        terms = ["".join(rnd.sample("abcde", rnd.randint(1, 3))) for _ in range(rnd.choice([2, 2, 3]))]
        if rnd.random() < 0.2:  # a diagonal
            terms[0] = terms[0] + terms[0][0]
        labels = sorted(set("".join(terms)))
        if len(labels) < 2:
            continue
        out = "".join(rnd.sample(labels, rnd.randint(2, len(labels))))
        ops = []
        for t in terms:
            shape = [ext[m] if rnd.random() > 0.1 else 1 for m in t]
            if len(set(t)) < len(t):  # a repeated label needs equal extents
                shape = [ext[m] for m in t]
            perm = list(range(len(t)))
            rnd.shuffle(perm)
            x = np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape)
            ops.append(np.ascontiguousarray(x.transpose(perm)).transpose(np.argsort(perm)))
        rows.append((",".join(terms) + "->" + out, ops))
    return rows


@pytest.mark.parametrize("optimize", [True, False])
def test_order_k_is_numpys_layout(optimize):
    for subscripts, ops in _layouts():
        want = np.einsum(subscripts, *ops)
        got = gettpy.einsum(subscripts, *ops, optimize=optimize)
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=subscripts)
        if want.ndim > 1 and not np.shares_memory(want, ops[0]):
            assert got.strides == want.strides, (subscripts, [o.strides for o in ops])


@pytest.mark.parametrize("optimize", [True, False])
@pytest.mark.parametrize("order", ["a", "f", "c", "k", None])
def test_output_order_flags(order, optimize):
    a = np.ones((2, 3, 5), order="F")
    b = np.ones((4, 3), order="F")
    c = np.ones((4, 3), order="C")
    kw = {} if order is None else {"order": order}
    for x, y in ((a, b), (a, c), (np.ascontiguousarray(a), c)):
        want = np.einsum("...ft,mf->...mt", x, y, **kw)
        got = gettpy.einsum("...ft,mf->...mt", x, y, optimize=optimize, **kw)
        np.testing.assert_array_equal(got, want)
        assert (got.flags.c_contiguous, got.flags.f_contiguous) == (want.flags.c_contiguous, want.flags.f_contiguous)


# --- bytes subscripts, Python scalars and lists
def test_bytes_subscripts():
    a, b = np.linspace(0, 1, 6).reshape(2, 3), np.linspace(1, 2, 12).reshape(3, 4)
    np.testing.assert_allclose(gettpy.einsum(b"ij,jk->ik", a, b), np.einsum(b"ij,jk->ik", a, b), rtol=1e-12)
    with pytest.raises(ValueError):
        gettpy.einsum("ij,jk->ik".encode("utf-16"), a, b)


@pytest.mark.parametrize("subscripts,operands", [
    ("ij,j->i", ([[1.0, 2.0], [3.0, 4.0]], np.array([0.5, -1.5]))),
    (",i->i", (2.5, np.array([1.0, -2.0, 3.0]))),
    ("i,->", (np.linspace(0, 1, 9), 3.0)),
    ("...i,...i", ([1.0, 2.0, 3.0], [2.0, 3.0, 4.0])),
    (",ab,->ab", (2.0, [[1.0, 2.0], [3.0, 4.0]], 0.5j)),
])
def test_python_scalars_and_lists(subscripts, operands):
    got = gettpy.einsum(subscripts, *operands)
    want = np.einsum(subscripts, *operands)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-12)


@needs_int
@pytest.mark.parametrize("subscripts,operands", [
    (",i->i", (2, np.arange(3.0))),
    ("..., ...", (3, 4)),
    ("i,i", ([1, 2, 3], [2, 3, 4])),
])
def test_python_ints_next_to_arrays(subscripts, operands):
    got = gettpy.einsum(subscripts, *operands)
    want = np.einsum(subscripts, *operands)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


# --- tensordot as numpy.tensordot
@pytest.mark.parametrize("a,b,axes", [
    ([[1.0, 2.0], [3.0, 4.0]], np.linspace(0, 1, 6).reshape(2, 3), 1),
    (np.linspace(0, 1, 6).reshape(2, 3), [[1.0], [2.0], [3.0]], ([1], [0])),
    (2.5, np.linspace(0, 1, 4), 0),
    (np.linspace(0, 1, 24).reshape(2, 3, 4), np.linspace(1, 2, 24).reshape(3, 2, 4), ([0, 1], [1, 0])),
    (np.linspace(0, 1, 6).reshape(2, 3), np.linspace(1, 2, 6).reshape(2, 3), 2),
    (np.linspace(0, 1, 6).reshape(2, 3), np.linspace(1, 2, 6).reshape(3, 2), (-1, 0)),
    (np.linspace(0, 1, 6).reshape(2, 3), np.linspace(1, 2, 6).reshape(3, 2), np.int64(1)),
    (np.linspace(0, 1, 6).reshape(2, 3), np.linspace(1, 2, 6).reshape(3, 2), True),  # (a bool is the int 1)
    (np.asfortranarray(np.linspace(0, 1, 20).reshape(4, 5)), np.asfortranarray(np.linspace(1, 2, 15).reshape(5, 3)),
     1),  # (Fortran operands: numpy's result is still C-contiguous)
])
def test_tensordot_like_numpy(a, b, axes):
    got = gettpy.tensordot(a, b, axes=axes)
    want = np.tensordot(a, b, axes=axes)
    assert type(got) is type(want) and got.shape == want.shape
    assert got.flags.c_contiguous == want.flags.c_contiguous
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_tensordot_errors():
    with pytest.raises(ValueError):
        gettpy.tensordot(np.ones((2, 3)), np.ones((4, 2)), axes=1)
    for axes in (5, ([5], [0])):  # (out of range: numpy raises IndexError; gettpy's is also a ValueError)
        with pytest.raises(IndexError, match="tensordot"):
            gettpy.tensordot(np.ones((2, 3)), np.ones((3, 2)), axes=axes)
        with pytest.raises(IndexError):
            np.tensordot(np.ones((2, 3)), np.ones((3, 2)), axes=axes)
    with pytest.raises(ValueError):
        gettpy.tensordot(np.ones((2, 3)), np.ones((3, 2)), axes=([5], [0]))
    with pytest.raises(TypeError):
        gettpy.tensordot(np.ones((2, 3)), np.ones((3, 2)), axes=([0.5], [0]))


# --- pad / unpad on numpy arrays
@pytest.mark.parametrize("shape,multiples,view", [
    ((3, 5), 4, None), ((3, 5), (2, 8), None), ((4, 8), (2, 4), None), ((7,), 3, None), ((2, 3, 5), (1, 2, 3), None),
    ((6, 10), (4, 4), (slice(None, None, 2), slice(None, None, -3))), ((0, 3), 2, None),
])
@pytest.mark.parametrize("dtype", [np.float64, np.float16, np.complex64, np.int32])
def test_pad_unpad_numpy(shape, multiples, view, dtype):
    x = (np.arange(int(np.prod(shape))) + 1).astype(dtype).reshape(shape)
    if view is not None:
        x = x[view]
    p = gettpy.pad(x, multiples)
    m = (multiples,) * x.ndim if isinstance(multiples, int) else multiples
    assert p.shape == tuple(-(-e // k) * k for e, k in zip(x.shape, m, strict=True)) and p.dtype == x.dtype
    assert isinstance(p, np.ndarray) and p.flags.c_contiguous
    corner = tuple(slice(0, e) for e in x.shape)
    np.testing.assert_array_equal(p[corner], x)
    rest = np.ones(p.shape, bool)
    rest[corner] = False
    assert not np.any(p[rest])
    u = gettpy.unpad(p, x.shape)
    np.testing.assert_array_equal(u, x)
    assert u.flags.c_contiguous and not np.shares_memory(u, p)


def test_pad_errors():
    with pytest.raises(ValueError):
        gettpy.pad(np.ones((2, 3)), (2,))
    with pytest.raises(ValueError):
        gettpy.unpad(np.ones((2, 3)), (3, 3))
    for bad in (2.5, "ab", (2, 1.5)):  # (not integers: a TypeError naming the argument)
        with pytest.raises(TypeError, match="pad: multiples"):
            gettpy.pad(np.ones((2, 3)), bad)


def test_pad_takes_numpy_integers():
    x = np.arange(6.0).reshape(2, 3)
    assert gettpy.pad(x, np.int64(4)).shape == (4, 4)
    np.testing.assert_array_equal(gettpy.pad(x, (np.int32(2), np.uint8(5)))[:2, :3], x)


#: one-operand complex sums whose elements hold inf or NaN in one part: numpy adds them, so the other part is kept
COMPLEX_SUMS = [
    ("i->", [np.inf + 0j, 1 + 1j]),
    ("i->", [np.nan + 0j, 2j]),
    ("i->", [1e308 + 0j, 1e308 + 0j]),  # (the real sum overflows to inf; the imaginary one stays 0)
    ("ij->i", [[complex(0, np.inf), 1], [complex(-np.inf, 2), 3j]]),
    ("ii->", [[complex(np.inf, 1), 5], [7, 2j]]),
    ("ijk->kj", np.full((2, 3, 2), complex(np.nan, 1.5))),
]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("subscripts,values", COMPLEX_SUMS)
def test_one_operand_complex_sums_keep_inf_and_nan_apart(subscripts, values, dtype):
    """A one-operand complex einsum is a sum, not a product by 1 + 0i (which turns inf x 0 into a NaN part):
    numpy's values, bit for bit where they are inf or NaN, with and without `out=`."""
    a = np.asarray(values, dtype=dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        want = np.einsum(subscripts, a)
        got = gettpy.einsum(subscripts, a)
        out = np.zeros(np.shape(want), dtype=np.complex128)
        gettpy.einsum(subscripts, a, out=out, casting="safe")
    for g in (np.asarray(got), out):
        np.testing.assert_array_equal(g.real, np.real(want))
        np.testing.assert_array_equal(g.imag, np.imag(want))


#: (subscripts, operand shapes, out shape): output labels of extent 1 stretched over longer `out` axes, as numpy does
OUT_BROADCASTS = [
    ("i->i", [(1,)], (3,)),
    ("ij,j->i", [(1, 3), (3,)], (2,)),
    ("ij,jk->ik", [(1, 3), (3, 1)], (2, 4)),
    ("bij,bjk->bik", [(1, 2, 3), (1, 3, 4)], (5, 2, 4)),
]


@pytest.mark.parametrize("subscripts,shapes,out_shape", OUT_BROADCASTS)
@pytest.mark.parametrize("out_dtype", [np.float64, np.complex128])
def test_out_broadcasts_extent_one_labels(subscripts, shapes, out_shape, out_dtype):
    rng = np.random.default_rng(11)
    ops_ = [rng.standard_normal(s) for s in shapes]
    want = np.zeros(out_shape, out_dtype)
    np.einsum(subscripts, *ops_, out=want)
    got = np.full(out_shape, np.nan, out_dtype)[..., ::1]
    assert gettpy.einsum(subscripts, *ops_, out=got) is got
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_out_that_cannot_take_the_result_still_refused():
    with pytest.raises(ValueError, match="out has shape"):
        gettpy.einsum("ij,jk->ik", np.ones((2, 3)), np.ones((3, 4)), out=np.zeros((3, 4)))
    with pytest.raises(TypeError):  # (stretched, but float64 into float32 under casting='safe', numpy's plain path)
        gettpy.einsum("ij,jk->ik", np.ones((1, 3)), np.ones((3, 4)), out=np.zeros((2, 4), np.float32), optimize=False)
    base = np.zeros(3)
    with pytest.raises(ValueError, match="out"):  # (a stretched result into an out that overlaps itself)
        gettpy.einsum("i->i", np.ones(1), out=np.lib.stride_tricks.as_strided(base, shape=(3,), strides=(0,)))
    assert not base.any()


# ------------------------------------------------------------------ floating-point errors and ComplexWarning
FP_CALLS = [  # (subscripts, operands): sums that overflow or meet inf - inf, as numpy's loops meet them
    ("i->", [np.full(100, 1000, np.float16)]),
    ("i,i->", [np.full(100, 1000, np.float16), np.full(100, 1000, np.float16)]),
    ("i->", [np.array([np.inf, -np.inf])]),
    ("ij,jk->ik", [np.full((4, 40), 3e38, np.float32), np.full((40, 3), 10, np.float32)]),
]


@pytest.mark.parametrize("subs,ops", FP_CALLS, ids=[s for s, _ in FP_CALLS])
def test_no_floating_point_errors(subs, ops):
    """Under np.errstate(all='raise') numpy's einsum returns inf / nan without raising or warning; so does gettpy,
    with numpy's values."""
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        want = np.einsum(subs, *ops)
        got = gettpy.einsum(subs, *ops)
    np.testing.assert_array_equal(np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64))


@pytest.mark.parametrize("subs,shapes", [("i->i", [(3,)]), ("i,i->i", [(3,), (3,)]), ("ij,jk->ik", [(3, 4), (4, 2)])])
def test_complex_into_real_out_warns_once(subs, shapes):
    """A complex result written into a real `out` under casting='unsafe': numpy's ComplexWarning, once, and the real
    part, as numpy gives."""
    rng = np.random.default_rng(3)
    ops = [rng.standard_normal(s) + 1j * rng.standard_normal(s) for s in shapes]
    shape = np.einsum(subs, *ops).shape
    want, got = np.zeros(shape), np.zeros(shape)
    with warnings.catch_warnings(record=True) as wn:
        warnings.simplefilter("always")
        np.einsum(subs, *ops, out=want, casting="unsafe")
    with warnings.catch_warnings(record=True) as wg:
        warnings.simplefilter("always")
        gettpy.einsum(subs, *ops, out=got, casting="unsafe")
    assert [w.category for w in wg] == [w.category for w in wn] == [np.exceptions.ComplexWarning]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("subs,shapes", [("ij,jk->ki", [(3, 4), (4, 5)]), ("abc,cd->dba", [(2, 3, 4), (4, 5)]),
                                         ("ij,jk,kl->li", [(2, 3), (3, 4), (4, 5)])])
def test_result_owns_its_memory(subs, shapes):
    """numpy's einsum result owns its memory, in numpy's strides (order='K'); so does gettpy's (not a transposed
    view of a buffer): `resize` works on it."""
    rng = np.random.default_rng(5)
    ops = [rng.standard_normal(s) for s in shapes]
    want, got = np.einsum(subs, *ops), gettpy.einsum(subs, *ops)
    assert got.flags.owndata and got.strides == want.strides
    np.testing.assert_allclose(got, want, rtol=1e-12)
    got.resize(got.size)
