"""Hypothesis fuzz of gettpy's dtype handling against numpy.einsum on the CPU executor.

Mixed operand types (bool, signed and unsigned integers, float16/32/64, complex64/128), `out=` /
`dtype=` / `casting` combinations, custom ops and semirings with numpy twins (new twins behind the same
CUDA text every example, so a plan shared between twins shows up as a wrong value), and the plan API
with mixed types and alpha/beta. Inputs are small integers (exact in every type, so any wrong cast or
promotion is a wrong value, not a rounding difference): numpy.einsum gives the result type, the
errors (a numpy TypeError must be a gettpy DtypeError) and the integer/bool values (wrap-around
included); floating values are also checked against numpy in float64 / complex128.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gettpy
from gettpy import ops
from gettpy.errors import DtypeError, GettpyError

_BASE = settings(deadline=None, derandomize=True, database=None, print_blob=True,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def fuzz(n: int) -> settings:
    """Deterministic settings (CI runs the same examples every time) with n examples."""
    return settings(_BASE, max_examples=n)

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
          np.float16, np.float32, np.float64, np.complex64, np.complex128]
FLOATS = [np.float16, np.float32, np.float64, np.complex64, np.complex128]
CASTINGS = ["no", "equiv", "safe", "same_kind", "unsafe"]
MODES = "abcd"


@st.composite
def einsum_call(draw, max_operands=3, allow_repeats=True):
    """(subscripts, shapes): explicit output, extents 1..4, diagonals allowed."""
    ext = {m: draw(st.integers(1, 4)) for m in MODES}
    n = draw(st.integers(1, max_operands))
    ins = []
    for _ in range(n):
        k = draw(st.integers(0, 3))
        modes = draw(st.lists(st.sampled_from(MODES), min_size=k, max_size=k))
        if not allow_repeats:
            modes = list(dict.fromkeys(modes))
        ins.append("".join(modes))
    used = sorted(set("".join(ins)))
    out = draw(st.permutations(used).map(lambda p: "".join(p[: draw(st.integers(0, len(p)))])))
    return ",".join(ins) + "->" + out, [tuple(ext[m] for m in s) for s in ins]


def _operand(dt, shape, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dt).kind == "b":
        return rng.random(shape) < 0.6
    lo = 0 if np.dtype(dt).kind == "u" else -3
    x = rng.integers(lo, 4, size=shape)
    if np.dtype(dt).kind == "c":
        x = x + 1j * rng.integers(-3, 4, size=shape)
    return np.asarray(x).astype(dt)


def _wide(x):
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def _check_value(got, want, ref64=None):
    assert type(got) is np.ndarray or np.isscalar(got) or isinstance(got, np.generic)
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
        return
    tol = {2: 2e-3, 4: 1e-6, 8: 1e-6, 16: 1e-12}[want.dtype.itemsize if want.dtype.kind != "c"
                                                   else want.dtype.itemsize // 2 * 2]
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    if ref64 is not None:
        np.testing.assert_allclose(got, ref64.astype(want.dtype) if ref64.dtype.kind != "c" or want.dtype.kind == "c"
                                   else ref64.real.astype(want.dtype), rtol=tol, atol=tol)


def _numpy(subs, arrays, **kw):
    """numpy.einsum's answer, or the exception type it raises."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return np.einsum(subs, *arrays, **kw), None
        except (TypeError, ValueError) as e:
            return None, e


def _gettpy(subs, arrays, **kw):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return gettpy.einsum(subs, *arrays, **kw)


@fuzz(1000)
@given(call=einsum_call(), types=st.lists(st.sampled_from(DTYPES), min_size=3, max_size=3),
       seed=st.integers(0, 2**16))
def test_fuzz_mixed_dtypes_match_numpy(call, types, seed):
    subs, shapes = call
    arrays = [_operand(t, s, seed + i) for i, (t, s) in enumerate(zip(types, shapes, strict=False))]
    want, err = _numpy(subs, arrays)
    assert err is None, err  # every combination of these types is valid for numpy
    got = _gettpy(subs, arrays)
    ref = None
    if want.dtype.kind in "fc" and all(x.dtype.kind in "fc" for x in arrays):
        ref = np.einsum(subs, *[_wide(x) for x in arrays])
    _check_value(got, want, ref)


@fuzz(700)
@given(call=einsum_call(max_operands=3), types=st.lists(st.sampled_from(DTYPES), min_size=3, max_size=3),
       out_t=st.one_of(st.none(), st.sampled_from(DTYPES)), dtype=st.one_of(st.none(), st.sampled_from(DTYPES)),
       casting=st.sampled_from(CASTINGS), seed=st.integers(0, 2**16))
def test_fuzz_out_dtype_casting_match_numpy(call, types, out_t, dtype, casting, seed):
    subs, shapes = call
    arrays = [_operand(t, s, seed + i) for i, (t, s) in enumerate(zip(types, shapes, strict=False))]
    lhs, out_modes = subs.split("->")
    if len(arrays) == 1 and set(out_modes) == set(lhs):
        # (numpy returns such einsums as views of the operand, or copies them, ignoring dtype= and casting:
        #  a parity matter, not a type-resolution one)
        dtype, casting = None, "unsafe"
    kw = {"casting": casting}
    if dtype is not None:
        kw["dtype"] = dtype
    base, _ = _numpy(subs, arrays)
    out_shape = base.shape
    sentinel = 5
    if out_t is not None:
        kw["out"] = np.full(out_shape, sentinel, dtype=out_t)
        before = kw["out"].copy()
    want, err = _numpy(subs, arrays, **{**kw, **({"out": np.full(out_shape, sentinel, out_t)} if out_t else {})})
    if err is not None:
        assert isinstance(err, TypeError), err  # (every numpy failure here is a casting TypeError)
        with pytest.raises(DtypeError):
            _gettpy(subs, arrays, **kw)
        if out_t is not None:
            np.testing.assert_array_equal(kw["out"], before, err_msg="out written although einsum raised")
        return
    got = _gettpy(subs, arrays, **kw)
    if out_t is not None:
        assert got is kw["out"]
    _check_value(got, want)


# ------------------------------------------------------------------------------- ops and semirings with twins
TWINS = [  # (numpy twin, the same function in float64 for the reference)
    lambda v: 2 * v, lambda v: 3 * v, lambda v: -v, lambda v: v * v, lambda v: v + 1, lambda v: np.abs(v) - 1,
]
SEMIRING_PARTS = [(np.maximum, np.add), (np.minimum, np.add), (np.maximum, np.multiply), (np.add, np.multiply),
                  (np.minimum, np.multiply)]


@fuzz(450)
@given(call=einsum_call(max_operands=2), t=st.sampled_from([np.float32, np.float64, np.complex128]),
       twins=st.lists(st.integers(0, len(TWINS) - 1), min_size=3, max_size=3), seed=st.integers(0, 2**16))
def test_fuzz_custom_ops_with_twins(call, t, twins, seed):
    subs, shapes = call
    arrays = [_operand(t, s, seed + i) for i, s in enumerate(shapes)]
    # the same CUDA text for every twin: only the twin's identity tells the plans apart
    in_ops = [ops.custom("x", numpy=TWINS[twins[i]]) for i in range(len(arrays))]
    op_out = ops.custom("x", numpy=TWINS[twins[2]])
    got = gettpy.einsum(subs, *arrays, ops=in_ops, op_out=op_out)
    ref = TWINS[twins[2]](np.einsum(subs, *[TWINS[twins[i]](_wide(x)) for i, x in enumerate(arrays)]))
    _check_value(got, np.asarray(ref).astype(np.result_type(*arrays)))


@fuzz(450)
@given(call=einsum_call(max_operands=2, allow_repeats=False), t=st.sampled_from([np.float32, np.float64]),
       parts=st.integers(0, len(SEMIRING_PARTS) - 1), seed=st.integers(0, 2**16))
def test_fuzz_semirings_with_twins(call, t, parts, seed):
    subs, shapes = call
    if len(shapes) != 2:
        return
    add, mul = SEMIRING_PARTS[parts]
    zero = {np.maximum: -np.inf, np.minimum: np.inf, np.add: 0.0}[add]
    one = 0.0 if mul is np.add else 1.0
    # the same CUDA text for every semiring: only the twins tell them apart
    sr = ops.semiring("(a + b)", "(x * y)", zero, one, add, lambda x, y, m=mul: m(x, y))
    a, b = (_operand(t, s, seed + i) for i, s in enumerate(shapes))
    got = gettpy.einsum(subs, a, b, semiring=sr)
    # reference: the product over every mode, then the semiring's add over the summed modes
    lhs, out = subs.split("->")
    sa, sb = lhs.split(",")
    modes = sorted(set(sa + sb))
    ext = dict(zip(sa, a.shape, strict=True)) | dict(zip(sb, b.shape, strict=True))
    full = mul(_expand(_wide(a), sa, modes, ext), _expand(_wide(b), sb, modes, ext))
    summed = tuple(i for i, m in enumerate(modes) if m not in out)
    red = add.reduce(full, axis=summed, initial=zero) if summed else full
    kept = [m for m in modes if m in out]
    ref = np.transpose(red, [kept.index(m) for m in out]) if out else red
    _check_value(got, np.asarray(ref).astype(t))


def _expand(x, s: str, modes: list[str], ext: dict[str, int]) -> np.ndarray:
    """x (modes `s`, unique) with one axis per mode of `modes`, broadcast along the modes it lacks."""
    v = np.einsum(f"{s}->{''.join(m for m in modes if m in s)}", x)
    return np.broadcast_to(v.reshape([ext[m] if m in s else 1 for m in modes]), [ext[m] for m in modes])


# ------------------------------------------------------------------------------- the plan API
@fuzz(450)
@given(ta=st.sampled_from(DTYPES), tb=st.sampled_from(DTYPES), td=st.one_of(st.none(), st.sampled_from(FLOATS)),
       alpha=st.sampled_from([0, 1, 2, -1, 0.5, 1j, 2 - 1j]), beta=st.sampled_from([0, 1, -2, 0.5j]),
       shape=st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(1, 5)), seed=st.integers(0, 2**16))
def test_fuzz_plan_api_mixed_types(ta, tb, td, alpha, beta, shape, seed):
    m, n, k = shape
    a, b = _operand(ta, (m, k), seed), _operand(tb, (k, n), seed + 1)
    res = np.result_type(a.dtype, b.dtype)
    dt = np.dtype(td) if td is not None else res
    c = _operand(dt, (m, n), seed + 2)
    d = np.full((m, n), 9, dt)
    before = d.copy()
    desc = gettpy.TensorDescriptor.of
    p = gettpy.plan(desc(a), "ik", desc(b), "kj", desc(c), "ij", desc(d), "ij")
    compute = np.result_type(res, dt)
    bad = (isinstance(alpha, complex) or isinstance(beta, complex)) and compute.kind != "c" \
        or compute.kind in "biu" and (isinstance(alpha, float) or isinstance(beta, complex))
    if bad:
        with pytest.raises(DtypeError):
            gettpy.contract(p, alpha, a, b, beta, c, d)
        np.testing.assert_array_equal(d, before)
        return
    if compute.kind == "b" and (alpha not in (0, 1) or beta not in (0, 1)):
        return  # (bool plans: alpha and beta 0 or 1)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        gettpy.contract(p, alpha, a, b, beta, c, d)
        if compute.kind in "iu":
            ref = alpha * (a.astype(np.int64) @ b.astype(np.int64)) + beta * c.astype(np.int64)
            want = ref.astype(dt)
        elif compute.kind == "b":
            want = ((a @ b) if alpha else np.zeros((m, n), bool)) | (c.astype(bool) if beta else False)
            want = want.astype(dt)
        else:
            prod = _wide(a.astype(compute)) @ _wide(b.astype(compute)) if alpha != 0 else 0
            ref = alpha * prod + beta * _wide(c.astype(compute))
            want = (np.asarray(ref).real if dt.kind != "c" else np.asarray(ref)).astype(dt)
    _check_value(d, want)


def test_fuzz_errors_are_builtin_kinds():
    """Every gettpy error a user can meet here is a TypeError or ValueError."""
    with pytest.raises(TypeError):
        gettpy.einsum("i,i->", np.array(["a"]), np.ones(1))
    assert issubclass(DtypeError, GettpyError)
