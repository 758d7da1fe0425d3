"""Issue #40, numpy parity and a plan API without traps, on the CPU executor against numpy float64 references:

1. the plan API (`plan`, `Contraction`) refuses the ops the computation's type cannot take, with einsum's rule
   and error type (one shared check, `gettpy.dtypes.check_ops`), naming the operand and the op;
2. `Contraction` names a wrong-shaped `out` (or `c`) as itself, not as "operand C";
3. byte-swapped numpy arrays: einsum takes a byte-swapped `out` (and `dtype=`) as numpy does, byte-swapped
   operands give numpy's values, and the plan API refuses them with a DtypeError that says so;
4. `gettpy.tune` refuses integer, bool and complex contractions with a DtypeError (the tuner's design space
   is the floating-point kernel's tiles, with or without a GPU), and tunes float types on the CPU executor.
"""
from __future__ import annotations

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import gettpy
from gettpy import ops
from gettpy.errors import DtypeError, LayoutError, OpError, ShapeError

SWAP = ">" if np.little_endian else "<"  # the byte order that is not this machine's


def _ints(shape, dtype, seed=0):
    """Small values of `dtype` (bool, integer or complex) in a fixed pattern with negatives where signed."""
    v = (np.arange(int(np.prod(shape))).reshape(shape) * 7 + seed) % 5 - (2 if np.dtype(dtype).kind in "ifc" else 0)
    if np.dtype(dtype).kind == "c":
        return (v + 1j * ((v + 3) % 4 - 1)).astype(dtype)
    return v.astype(dtype)


def _ref_ops(op, x):
    """`op` on `x` in float64 / complex128 (the reference's own arithmetic)."""
    wide = np.complex128 if np.iscomplexobj(x) else np.float64
    return np.asarray(op(x.astype(wide)), dtype=wide)


# --------------------------------------------------------------------------- 1. ops the type cannot take
#: (operand dtype, the op): pairs both einsum and the plan API refuse
_REFUSED = [
    (np.int32, ops.sigmoid), (np.int64, ops.exp), (np.uint8, ops.sqrt), (np.int16, ops.scale(0.5)),
    (np.int8, ops.leaky_relu(0.1)), (np.uint16, ops.elu(1.0)), (np.int32, ops.gelu), (np.int64, ops.tanh),
    (np.bool_, ops.neg), (np.bool_, ops.relu), (np.bool_, ops.custom("x", np.asarray, "keep")),
    (np.complex64, ops.relu), (np.complex128, ops.sigmoid), (np.complex64, ops.abs), (np.complex128, ops.elu(1.0)),
]
_SLOTS = {"A": "ops[0]", "B": "ops[1]", "D": "op_out"}  # the plan API's operand -> einsum's argument


def _plan_with_op(dtype, slot, op):
    """gettpy.plan of 'ik,kj->ij' on arrays of `dtype` with `op` on the descriptor of `slot`."""
    a, b, d = _ints((2, 3), dtype), _ints((3, 4), dtype, 1), np.zeros((2, 4), dtype)
    c = np.zeros((2, 4), dtype)
    desc = gettpy.TensorDescriptor.of
    on = {s: (op if s == slot else None) for s in "ABCD"}
    return gettpy.plan(desc(a, on["A"]), "ik", desc(b, on["B"]), "kj", desc(c, on["C"]), "ij", desc(d, on["D"]), "ij")


@pytest.mark.parametrize("slot", ["A", "B", "C", "D"])
@pytest.mark.parametrize("dtype,op", _REFUSED, ids=lambda v: getattr(v, "name", None) or np.dtype(v).name)
def test_plan_refuses_ops_the_type_cannot_take_as_einsum_does(dtype, op, slot):
    """The plan API refuses what einsum refuses: the same OpError (a ValueError), naming the operand and the op."""
    with pytest.raises(OpError) as e:
        _plan_with_op(dtype, slot, op)
    msg = str(e.value)
    assert isinstance(e.value, ValueError)
    assert msg.startswith(f"operand {slot} (desc_{slot.lower()}.op): op ") and op.name in msg
    if slot in _SLOTS:  # (einsum has no C)
        x = _ints((2, 3), dtype)
        kw = {"ops": [op, None]} if slot == "A" else {"ops": [None, op]} if slot == "B" else {"op_out": op}
        with pytest.raises(OpError) as ee:
            gettpy.einsum("ik,jk->ij", x, x, **kw)
        assert str(ee.value).startswith(f"{_SLOTS[slot]}: ") and op.name in str(ee.value)
        assert str(ee.value).split(": ", 1)[1] == msg.split(": ", 1)[1]  # (one check: the same words)


#: (operand dtype, op_a, op_b, op_d): ops the type takes, which still run
_ACCEPTED = [
    (np.int32, ops.neg, ops.relu, ops.square), (np.int64, ops.scale(3), ops.abs, ops.leaky_relu(2)),
    (np.uint8, None, ops.square, ops.scale(2)),
    (np.int16, ops.custom("(x * T(3))", lambda x: 3 * x, "triple"), None, ops.relu),
    (np.complex64, ops.conj, ops.neg, ops.square), (np.complex128, ops.scale(0.5), ops.conj, ops.neg),
    (np.complex128, ops.custom("x", lambda x: x * 1j, "times_i"), None, None),
]


@pytest.mark.parametrize("dtype,op_a,op_b,op_d", _ACCEPTED, ids=lambda v: getattr(v, "name", None) or str(v))
def test_plan_runs_the_ops_the_type_takes(dtype, op_a, op_b, op_d):
    """Integer-valued ops on integers, complex ops on complex values and custom ops still plan and run: values
    equal to numpy's in float64 / complex128, cast to D's type (integers wrap as numpy's do)."""
    a, b = _ints((3, 4), dtype), _ints((4, 5), dtype, 2)
    d = np.full((3, 5), 9, dtype)
    desc = gettpy.TensorDescriptor.of
    p = gettpy.plan(desc(a, op_a), "ik", desc(b, op_b), "kj", desc(d, op_d), "ij")
    gettpy.contract(p, 1, a, b, 0, None, d)
    ref = _ref_ops(ops.as_op(op_d), _ref_ops(ops.as_op(op_a), a) @ _ref_ops(ops.as_op(op_b), b))
    if np.dtype(dtype).kind == "c":
        np.testing.assert_allclose(d, ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())
    else:
        np.testing.assert_array_equal(d, ref.astype(np.int64).astype(dtype))
    con = gettpy.Contraction("ik,kj->ij", a, b, ops=(op_a, op_b), op_out=op_d)
    np.testing.assert_array_equal(con.execute(), d)


@pytest.mark.parametrize("kw,named", [({"ops": ("sigmoid", None)}, "ops[0] (operand A)"),
                                      ({"ops": (None, ops.scale(0.25))}, "ops[1] (operand B)"),
                                      ({"op_out": "exp"}, "op_out (operand D)")])
@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.bool_])
def test_contraction_refuses_ops_when_constructed(dtype, kw, named):
    """Contraction refuses the op when it is made (not at the first execute), naming the argument and operand;
    an out passed in is untouched."""
    a, b = _ints((2, 3), dtype), _ints((3, 4), dtype, 1)
    out = np.full((2, 4), 1, dtype)
    with pytest.raises(OpError, match=r"^" + named.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        gettpy.Contraction("ik,kj->ij", a, b, out=out, **kw)
    assert (out == 1).all()


def test_contraction_refuses_ops_after_reset_to_another_type():
    """reset_operands may bring operands of another type: the next plan checks the ops again (a sigmoid fit for
    float64 operands is refused on int32 ones, not truncated)."""
    a, b = _ints((2, 3), np.float64), _ints((3, 4), np.float64, 1)
    con = gettpy.Contraction("ik,kj->ij", a, b, ops=("sigmoid", None))
    got = con.execute()
    np.testing.assert_allclose(got, (1 / (1 + np.exp(-a))) @ b, rtol=1e-12)
    con.reset_operands(a=a.astype(np.int32), b=b.astype(np.int32), out=np.zeros((2, 4), np.int32))
    with pytest.raises(OpError, match=r"^ops\[0\] \(operand A\): op sigmoid .* int32"):
        con.execute()


def test_float_plans_take_every_op():
    """A float computation takes every op, also when an integer operand joins it (the ops run in the compute
    type, float64 here: sigmoid of an int32 A is not truncated)."""
    a, b = _ints((2, 3), np.int32), _ints((3, 4), np.float64, 1)
    d = np.zeros((2, 4))
    desc = gettpy.TensorDescriptor.of
    p = gettpy.plan(desc(a, "sigmoid"), "ik", desc(b, "tanh"), "kj", desc(d, "gelu"), "ij")
    gettpy.contract(p, 1.0, a, b, 0.0, None, d)
    ref = ops.gelu((1 / (1 + np.exp(-a.astype(np.float64)))) @ np.tanh(b))
    np.testing.assert_allclose(d, ref, rtol=1e-12)


# --------------------------------------------------------------------------- 2. Contraction names `out`
@pytest.mark.parametrize("what,shape", [("out", (3, 6)), ("out", (5, 3)), ("out", (3, 5, 1)), ("out", (15,)),
                                        ("c", (3, 6)), ("c", (1, 5))])
def test_contraction_names_a_wrong_shaped_out_or_c(what, shape):
    """A wrong-shaped out (or c) is a ShapeError that names it and both shapes, never "operand C"."""
    a, b = np.ones((3, 4)), np.ones((4, 5))
    with pytest.raises(ShapeError) as e:
        gettpy.Contraction("ij,jk->ik", a, b, **{what: np.zeros(shape)})
    msg = str(e.value)
    assert msg.startswith(f"Contraction: {what} has shape {shape}") and "(3, 5)" in msg
    assert "operand C" not in msg


def test_contraction_names_the_operands_of_a_disagreeing_mode():
    with pytest.raises(ShapeError, match="mode 'j' has extent 4 in operand a but 5 in operand b"):
        gettpy.Contraction("ij,jk->ik", np.ones((3, 4)), np.ones((5, 5)))


def test_contraction_with_the_right_out_still_runs():
    a, b = _ints((3, 4), np.float64), _ints((4, 5), np.float64, 1)
    out = np.asfortranarray(np.full((3, 5), np.nan))
    assert gettpy.Contraction("ij,jk->ik", a, b, out=out).execute(alpha=2.0) is out
    np.testing.assert_allclose(out, 2 * a @ b, rtol=1e-12)


# --------------------------------------------------------------------------- 3. byte order
#: (subscripts, operand shapes, operand dtype, out's dtype (byte-swapped))
_SWAPPED_OUT = [
    ("ij,jk->ik", [(3, 4), (4, 5)], np.float32, "f4"), ("ij,jk->ik", [(3, 4), (4, 5)], np.float64, "f8"),
    ("ij,jk->ik", [(3, 4), (4, 5)], np.float32, "f8"), ("ij,j->i", [(3, 4), (4,)], np.complex64, "c8"),
    ("ij,jk->ki", [(3, 4), (4, 5)], np.complex128, "c16"), ("ij,jk->ik", [(3, 4), (4, 5)], np.int32, "i4"),
    ("ij,jk->ik", [(3, 4), (4, 5)], np.int16, "i8"), ("ij,ij->", [(3, 4), (3, 4)], np.uint16, "u2"),
    ("ii->i", [(4, 4)], np.float64, "f8"), ("ij->", [(3, 4)], np.float32, "f4"),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)], np.float64, "f8"),
]


@pytest.mark.parametrize("subs,shapes,dtype,out_dt", _SWAPPED_OUT)
def test_einsum_into_a_byte_swapped_out_matches_numpy(subs, shapes, dtype, out_dt):
    """A byte-swapped out keeps its dtype and receives numpy's values (numpy.einsum into the same out)."""
    xs = [_ints(s, dtype, i) for i, s in enumerate(shapes)]
    shape = np.einsum(subs, *xs).shape
    out, want = np.full(shape, 7, SWAP + out_dt), np.full(shape, 7, SWAP + out_dt)
    assert gettpy.einsum(subs, *xs, out=out) is out
    np.einsum(subs, *xs, out=want)
    assert out.dtype == np.dtype(SWAP + out_dt)
    np.testing.assert_array_equal(out, want)
    wide = np.complex128 if np.dtype(out_dt).kind == "c" else np.float64
    np.testing.assert_allclose(out.astype(wide), np.einsum(subs, *(x.astype(wide) for x in xs)), rtol=1e-6)


def test_einsum_into_strided_and_overlapping_byte_swapped_outs():
    """A strided byte-swapped out is written in place (its other elements untouched); one that is also an
    operand gets the result of the operands as they were, as numpy."""
    a, b = _ints((3, 4), np.float64), _ints((4, 5), np.float64, 1)
    base = np.full((6, 10), -1.0, SWAP + "f8")
    out = base[::2, ::2]
    gettpy.einsum("ij,jk->ik", a, b, out=out)
    np.testing.assert_array_equal(out, a @ b)
    assert (base[1::2] == -1).all() and (base[:, 1::2] == -1).all()
    x = _ints((4, 4), np.float64).astype(SWAP + "f8")
    want = x @ x
    gettpy.einsum("ij,jk->ik", x, x.copy(), out=x)
    np.testing.assert_array_equal(x, want)


def test_einsum_with_a_byte_swapped_dtype_matches_numpy():
    """dtype= in the other byte order: numpy's result type (that dtype, or out's) and the float64 reference's
    values (numpy 2.4's own einsum returns the unswapped words there without out: 1e-320 for 3.0)."""
    a, b = _ints((3, 4), np.float32), _ints((4, 5), np.float32, 1)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    for out in (None, np.zeros((3, 5)), np.zeros((3, 5), SWAP + "f8")):
        got = gettpy.einsum("ij,jk->ik", a, b, dtype=SWAP + "f8", out=out)
        assert got.dtype == (np.dtype(SWAP + "f8") if out is None else out.dtype) and (out is None or got is out)
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("out,err,named", [
    (np.zeros(3, SWAP + "f4"), DtypeError, "out has dtype float32"),  # (float64 operands: casting='safe')
    (np.zeros(4, SWAP + "f8"), ShapeError, "out has shape (4,)"),
    (as_strided(np.zeros(3, SWAP + "f8"), (3,), (0,)), LayoutError, "out: its strides"),
])
def test_byte_swapped_out_errors_name_out_and_leave_it_untouched(out, err, named):
    """A byte-swapped out that numpy's rules refuse (a cast casting='safe' forbids, a wrong shape, elements that
    share memory) raises the error a native out raises (DtypeError a TypeError, as numpy's), naming out."""
    a, b = _ints((3, 4), np.float64), _ints((4,), np.float64, 1)
    before = out.copy()
    with pytest.raises(err) as e:
        gettpy.einsum("ij,j->i", a, b, out=out)
    assert named in str(e.value)
    np.testing.assert_array_equal(out, before)
    if err is DtypeError:
        with pytest.raises(TypeError):
            np.einsum("ij,j->i", a, b, out=out)


#: (subscripts, operand shapes, the operands' dtypes (byte-swapped where marked with '!'), ops)
_SWAPPED_IN = [
    ("ij,jk->ik", [(3, 4), (4, 5)], ["!f8", "f8"], None), ("ij,jk->ik", [(3, 4), (4, 5)], ["!f4", "!i4"], None),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)], ["!f8", "f4", "!c16"], None),
    ("ij,jk->ik", [(3, 4), (4, 5)], ["!f8", "!f8"], ["relu", "neg"]), ("ijj->i", [(2, 3, 3)], ["!i8"], None),
    ("i,i->", [(5,), (5,)], ["!u2", "!u2"], None), ("ij,ij->ij", [(3, 4), (3, 4)], ["!c8", "!c8"], ["conj", None]),
]


@pytest.mark.parametrize("subs,shapes,dts,in_ops", _SWAPPED_IN)
def test_byte_swapped_operands_give_numpys_values(subs, shapes, dts, in_ops):
    """Byte-swapped operands (alone, mixed with native ones, with ops, into a native out) give the values of a
    float64 / complex128 reference on the same values."""
    xs = [_ints(s, dt.lstrip("!"), i).astype((SWAP if dt[0] == "!" else "=") + dt.lstrip("!"))
          for i, (s, dt) in enumerate(zip(shapes, dts, strict=True))]
    wide = np.complex128 if any(x.dtype.kind == "c" for x in xs) else np.float64
    refs = [_ref_ops(ops.as_op(o), x).astype(wide) for o, x in zip(in_ops or [None] * len(xs), xs, strict=True)]
    want = np.einsum(subs, *refs)
    got = gettpy.einsum(subs, *xs, ops=in_ops)
    assert np.asarray(got).dtype.isnative
    np.testing.assert_allclose(np.asarray(got).astype(wide), want, rtol=1e-6)
    out = np.zeros(np.shape(want), np.asarray(got).dtype)
    gettpy.einsum(subs, *xs, ops=in_ops, out=out)
    np.testing.assert_array_equal(out, got)


@pytest.mark.parametrize("which", ["a", "b", "out", "c"])
def test_plan_api_refuses_byte_swapped_arrays(which):
    """The plan API describes arrays by their words: a byte-swapped one is a DtypeError that names it and its byte
    order (TensorDescriptor.of, Contraction, and contract on a plan of native descriptors), D untouched."""
    arrs = {"a": np.ones((3, 4)), "b": np.ones((4, 5)), "c": np.ones((3, 5)), "out": np.full((3, 5), 7.0)}
    swapped = arrs[which].astype(SWAP + "f8")
    with pytest.raises(DtypeError, match="byte-swapped"):
        gettpy.TensorDescriptor.of(swapped)
    with pytest.raises(DtypeError, match=rf"{which}: dtype .f8 is byte-swapped"):
        gettpy.Contraction("ij,jk->ik", **{**arrs, which: swapped})
    desc = gettpy.TensorDescriptor.of
    p = gettpy.plan(desc(arrs["a"]), "ij", desc(arrs["b"]), "jk", desc(arrs["c"]), "ik", desc(arrs["out"]), "ik")
    run = {**arrs, which: swapped}
    d = run["out"]
    before = d.copy()
    slot = {"a": "A", "b": "B", "c": "C", "out": "D"}[which]
    with pytest.raises(DtypeError, match=rf"^{slot}: dtype .f8 is byte-swapped"):
        gettpy.contract(p, 1.0, run["a"], run["b"], 1.0, run["c"], d)
    np.testing.assert_array_equal(d, before)


# --------------------------------------------------------------------------- 4. tune without a GPU
@pytest.mark.parametrize("dtype,kind", [(np.int8, "integer"), (np.int32, "integer"), (np.int64, "integer"),
                                        (np.uint8, "integer"), (np.bool_, "bool"), (np.complex64, "complex"),
                                        (np.complex128, "complex")])
def test_tune_refuses_integer_bool_and_complex(isolated, dtype, kind):
    """Integer, bool and complex contractions are not tuned, with or without a GPU: a DtypeError (a TypeError)
    that names the kind and the operands' type, before any candidate runs (nothing is recorded)."""
    from gettpy.plan import cache as plan_cache

    a, b = _ints((8, 9), dtype), _ints((9, 7), dtype, 1)
    with pytest.raises(DtypeError, match=rf"^tune: {kind} contractions are not tuned \(A {np.dtype(dtype).name}"):
        gettpy.tune("ij,jk->ik", a, b, samples=2, top=1, reps=1)
    with pytest.raises(DtypeError, match=rf"^tune: {kind} contractions are not tuned"):
        gettpy.Contraction("ij,jk->ik", a, b).autotune(samples=2, top=1, reps=1)
    assert not plan_cache._TUNED
    assert not list(isolated.rglob("*.json"))
    got = gettpy.einsum("ij,jk->ik", a, b)  # (the heuristic plan still runs, numpy's values)
    wide = np.complex128 if kind == "complex" else np.float64
    if kind == "bool":
        np.testing.assert_array_equal(got, np.einsum("ij,jk->ik", a, b))
    else:
        np.testing.assert_allclose(got.astype(wide), a.astype(wide) @ b.astype(wide), rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_tune_of_float_types_runs_on_the_cpu_executor(isolated, dtype):
    """Without a GPU, float contractions are tuned on the CPU executor: verified trials, and einsum's values."""
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((8, 9)).astype(dtype), rng.standard_normal((9, 7)).astype(dtype)
    trials = gettpy.tune("ij,jk->ik", a, b, samples=3, top=2, reps=1)
    assert trials and trials[0].ok
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(gettpy.einsum("ij,jk->ik", a, b).astype(np.float64), ref,
                               rtol=1e-2 if dtype == np.float16 else 1e-5, atol=1e-2 if dtype == np.float16 else 1e-6)


OVERLAP_CASES = [
    # (einsum, shapes, which input `out` is a view of, how: the view of that input that is `out`)
    ("ij,jk->ik", [(6, 6), (6, 6)], 0, lambda x: x.T),             # out = A transposed (F-ordered view)
    ("ij,jk->ik", [(6, 6), (6, 6)], 1, lambda x: x[::-1]),         # out = B reversed (negative stride)
    ("ij,jk->ik", [(6, 12), (12, 6)], 0, lambda x: x[:, ::2]),     # out = every other column of A
    ("ijk,kl->ijl", [(3, 4, 5), (5, 5)], 0, lambda x: x),          # out = A itself (C-ordered)
    ("ij,j->i", [(7, 7), (7,)], 0, lambda x: x[:, 2]),             # out = a strided column of A
]


@pytest.mark.parametrize("eq,shapes,which,view", OVERLAP_CASES)
def test_out_overlapping_an_input_in_any_layout(eq, shapes, which, view):
    """An out= that shares memory with an input, in any layout (C-ordered, transposed, strided, reversed), gets
    the values numpy gives from copies of the inputs, as numpy.einsum does (it was a LayoutError unless out
    was C-contiguous)."""
    rng = np.random.default_rng(len(eq))
    xs = [rng.standard_normal(s) for s in shapes]
    want = np.einsum(eq, *[x.copy() for x in xs])
    out = view(xs[which])
    assert np.shares_memory(out, xs[which]) and out.shape == want.shape
    got = gettpy.einsum(eq, *xs, out=out)
    assert got is out
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)


def test_half_chain_intermediates_are_half_as_numpys_optimized_path():
    """Three float16 operands contract pairwise with float16 intermediates (README): a·b leaves float16's range
    (inf, as numpy's optimized path gives) although the whole product fits; dtype='float32' computes the chain
    in float32 and matches float64."""
    a = np.full((2, 50), 100, np.float16)
    b = np.full((50, 2), 100, np.float16)
    c = np.full((2, 1000), 1e-4, np.float16)
    with np.errstate(over="ignore", invalid="ignore"):  # (inf intermediates, inf products)
        half = gettpy.einsum("ij,jk,kl->il", a, b, c)
        assert np.isinf(np.einsum("ij,jk,kl->il", a, b, c, optimize=True)).all()
    assert half.dtype == np.float16 and np.isinf(half).all()
    ref = np.einsum("ij,jk,kl->il", *(x.astype(np.float64) for x in (a, b, c)))
    got = gettpy.einsum("ij,jk,kl->il", a, b, c, dtype="float32")
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, ref, rtol=2e-3)


@pytest.mark.parametrize("where", ["operand", "out"])
def test_casting_no_refuses_byte_swapped_arrays_as_numpy(where):
    """casting='no' allows no change of byte order: numpy refuses a byte-swapped operand or out of a
    contraction under it (TypeError); gettpy too, naming it, and casting='equiv' takes both with numpy's values."""
    a = np.arange(4.0).reshape(2, 2)
    swapped = a.astype(a.dtype.newbyteorder())
    args = ("ij,jk->ik", swapped, a) if where == "operand" else ("ij,jk->ik", a, a)
    kw = {} if where == "operand" else {"out": np.empty((2, 2), a.dtype.newbyteorder())}
    with pytest.raises(TypeError):
        np.einsum(*args, casting="no", **kw)
    with pytest.raises(DtypeError, match=("operand 0" if where == "operand" else "out") + ".*byte-swapped"):
        gettpy.einsum(*args, casting="no", **kw)
    kw = {k: np.empty_like(v) for k, v in kw.items()}
    got = gettpy.einsum(*args, casting="equiv", **kw)
    np.testing.assert_array_equal(got, a @ a)
