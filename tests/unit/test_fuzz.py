"""Hypothesis fuzzing of gettpy.einsum against np.einsum (float64 unless said otherwise).

Random contractions of 1-3 operands over a small mode pool: repeated modes inside one operand
(diagonals, traces), batch modes, modes found in only one operand, explicit or implicit outputs,
extents 0..4 (mostly 1..4), size-1 dimensions broadcasting against a mode's extent, and operands that
are views: steps, negative steps, transposes, Fortran order, a shifted start and broadcast (stride-0)
dimensions. Altogether the tests below run well over 2,000 examples.
"""
from __future__ import annotations

import numpy as np
from harness import DTYPES, assert_close, magnitude, nonzero, reference
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import gettpy

POOL = "abcdeZ"  # 'Z' sorts before the lowercase letters: checks implicit output order
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

extent_st = st.integers(0, 19).map(lambda v: 0 if v == 0 else 1 + v % 4)  # 0 one time in 20


@st.composite
def view_of(draw, shape, rng, dtype=np.float64, allow_broadcast=True):
    """An array of `shape` that is a view: transposed memory order, steps (maybe negative), a shifted
    start, Fortran order or broadcast (stride 0) dimensions, chosen by hypothesis."""
    nd = len(shape)
    kind = draw(st.sampled_from(["c", "c", "f", "view", "view", "view"]))
    if kind in ("c", "f") or nd == 0:
        x = nonzero(rng, shape, dtype)
        return np.asfortranarray(x) if kind == "f" else x
    perm = draw(st.permutations(range(nd)))
    steps = [draw(st.sampled_from([1, 1, 2, -1, -2, 3])) for _ in range(nd)]
    shift = draw(st.integers(0, 1))
    bcast = [allow_broadcast and shape[d] > 1 and draw(st.integers(0, 5)) == 0 for d in range(nd)]
    inner = [1 if bcast[d] else shape[d] for d in range(nd)]
    base_shape = [0 if e == 0 else (e - 1) * abs(s) + 1 for e, s in zip(inner, steps, strict=True)]
    base_shape[0] += shift if base_shape[0] else 0
    mem = nonzero(rng, [base_shape[p] for p in perm], dtype)  # allocated in permuted order
    base = mem.transpose(np.argsort(perm))  # shape base_shape, non-C memory order
    index = []
    for d in range(nd):
        start = shift if d == 0 and base_shape[0] and steps[d] > 0 else None
        stop = None
        if d == 0 and shift and steps[d] < 0:
            stop = 0  # drop element 0 instead (the shift, seen from the other end)
        index.append(slice(start, stop, steps[d]))
    v = base[tuple(index)]
    assert v.shape == tuple(inner), (v.shape, inner, base_shape, steps, shift)
    return np.broadcast_to(v, shape) if any(bcast) else v


@st.composite
def contraction(draw, n_ops, allow_size1=True, max_rank=4):
    """(subscripts, operand shapes): random modes per operand, random output."""
    ext = {m: draw(extent_st) for m in POOL}
    terms, shapes = [], []
    for _ in range(n_ops):
        rank = draw(st.integers(0, max_rank))
        modes = [draw(st.sampled_from(POOL)) for _ in range(rank)]
        shape = []
        for m in modes:
            # a mode found once in this operand may have extent 1 there (numpy broadcasts it)
            if allow_size1 and modes.count(m) == 1 and ext[m] > 1 and draw(st.integers(0, 7)) == 0:
                shape.append(1)
            else:
                shape.append(ext[m])
        terms.append("".join(modes))
        shapes.append(tuple(shape))
    used = sorted(set("".join(terms)))
    if draw(st.integers(0, 3)) == 0:
        subs = ",".join(terms)  # implicit output
    else:
        out = draw(st.lists(st.sampled_from(used), unique=True, max_size=len(used))) if used else []
        subs = ",".join(terms) + "->" + "".join(out)
    return subs, shapes


def _views(data, shapes, seed) -> list:
    """One random (strided, possibly flipped) view per shape, drawn with hypothesis."""
    rng = np.random.default_rng(seed)
    return [data.draw(view_of(s, rng)) for s in shapes]


def _check(subs, xs, tol_dtype=np.float64, **kw):
    try:
        ref = reference(subs, *xs, **kw)
    except ValueError:
        assume(False)  # numpy refuses it (e.g. a size-1 broadcast it does not allow): not our case
        return
    got = gettpy.einsum(subs, *xs, **kw)
    note = f"{subs} shapes={[x.shape for x in xs]} strides={[x.strides for x in xs]}"
    # numpy returns a view (ignoring dtype=) for a one-operand pure permutation; gettpy honours dtype=
    want = np.dtype(kw["dtype"]) if "dtype" in kw else np.result_type(*[x.dtype for x in xs])
    assert np.asarray(got).dtype == want, f"{note}: dtype {np.asarray(got).dtype}, expected {want}"
    try:
        assert_close(got, ref, tol_dtype, scale=magnitude(subs, *xs))
    except AssertionError as e:
        raise AssertionError(f"{note}: {e}") from None


@settings(max_examples=400, **SETTINGS)
@given(data=st.data(), case=contraction(2), seed=st.integers(0, 2**32 - 1))
def test_fuzz_two_operands(data, case, seed):
    subs, shapes = case
    xs = _views(data, shapes, seed)
    _check(subs, xs)


@settings(max_examples=400, **SETTINGS)
@given(data=st.data(), case=contraction(1, max_rank=5), seed=st.integers(0, 2**32 - 1))
def test_fuzz_one_operand(data, case, seed):
    subs, shapes = case
    xs = _views(data, shapes, seed)
    _check(subs, xs)


@settings(max_examples=400, **SETTINGS)
@given(data=st.data(), case=contraction(3, max_rank=3), seed=st.integers(0, 2**32 - 1),
       optimize=st.sampled_from([True, False, "greedy", "optimal"]))
def test_fuzz_three_operands(data, case, seed, optimize):
    subs, shapes = case
    xs = _views(data, shapes, seed)
    try:
        ref = reference(subs, *xs)
    except ValueError:
        assume(False)
        return
    got = gettpy.einsum(subs, *xs, optimize=optimize)
    note = f"{subs} optimize={optimize!r} shapes={[x.shape for x in xs]} strides={[x.strides for x in xs]}"
    try:
        assert_close(got, ref, np.float64, scale=magnitude(subs, *xs))
    except AssertionError as e:
        raise AssertionError(f"{note}: {e}") from None


@settings(max_examples=400, **SETTINGS)
@given(data=st.data(), n_ops=st.integers(1, 3), seed=st.integers(0, 2**32 - 1))
def test_fuzz_sublist_and_out(data, n_ops, seed):
    """The same random contractions through the sublist form, writing into a strided `out`."""
    subs, shapes = data.draw(contraction(n_ops, max_rank=3))
    xs = _views(data, shapes, seed)
    try:
        ref = reference(subs, *xs)
    except ValueError:
        assume(False)
        return
    lhs = subs.split("->")[0].split(",")
    lab = {m: i for i, m in enumerate(sorted(set("".join(lhs))))}
    args = []
    for x, t in zip(xs, lhs, strict=True):
        args += [x, [lab[m] for m in t]]
    if "->" in subs:
        args.append([lab[m] for m in subs.split("->")[1]])
    shape = np.shape(ref)
    sentinel = -999.0
    if data.draw(st.booleans()) and shape:
        holder = np.full(tuple(2 * e for e in shape), sentinel)
        out = holder[tuple(slice(None, None, -2) for _ in shape)]
    else:
        holder = out = np.full(shape, sentinel, order=data.draw(st.sampled_from(["C", "F"])))
    got = gettpy.einsum(*args, out=out)
    assert got is out
    note = (f"{subs} (sublist) shapes={[x.shape for x in xs]} strides={[x.strides for x in xs]} "
            f"out.strides={out.strides}")
    try:
        assert_close(out, ref, np.float64, scale=magnitude(subs, *xs))
    except AssertionError as e:
        raise AssertionError(f"{note}: {e}") from None
    if holder is not out:
        mask = np.ones(holder.shape, bool)
        mask[tuple(slice(None, None, -2) for _ in shape)] = False
        assert (holder[mask] == sentinel).all(), f"{note}: wrote outside out"


@st.composite
def ellipsis_case(draw):
    """1-2 operands with '...' standing for 0-2 broadcasting dimensions (numpy's trailing alignment)."""
    n_ops = draw(st.integers(1, 2))
    n_ell = draw(st.integers(0, 2))
    ell_ext = [draw(st.integers(1, 3)) for _ in range(n_ell)]
    ext = {m: draw(st.integers(1, 4)) for m in "ijk"}
    terms, shapes = [], []
    for _ in range(n_ops):
        k = draw(st.integers(0, n_ell))  # this operand's '...' covers the last k of the n_ell dims
        ell = [1 if draw(st.integers(0, 3)) == 0 else e for e in ell_ext[n_ell - k:]]
        named = draw(st.lists(st.sampled_from("ijk"), unique=True, max_size=3))
        pos = draw(st.integers(0, len(named)))
        term = "".join(named[:pos]) + "..." + "".join(named[pos:])
        shape = [ext[m] for m in named[:pos]] + ell + [ext[m] for m in named[pos:]]
        terms.append(term)
        shapes.append(tuple(shape))
    used = sorted(set("".join(terms).replace(".", "")))
    if draw(st.booleans()):
        subs = ",".join(terms)
    else:
        out = draw(st.lists(st.sampled_from(used), unique=True)) if used else []
        pos = draw(st.integers(0, len(out)))
        subs = ",".join(terms) + "->" + "".join(out[:pos]) + "..." + "".join(out[pos:])
    return subs, shapes


@settings(max_examples=300, **SETTINGS)
@given(data=st.data(), case=ellipsis_case(), seed=st.integers(0, 2**32 - 1))
def test_fuzz_ellipsis(data, case, seed):
    subs, shapes = case
    xs = _views(data, shapes, seed)
    _check(subs, xs)


@settings(max_examples=250, **SETTINGS)
@given(data=st.data(), n_ops=st.integers(1, 2), dtype=st.sampled_from(DTYPES), seed=st.integers(0, 2**32 - 1))
def test_fuzz_dtypes(data, n_ops, dtype, seed):
    subs, shapes = data.draw(contraction(n_ops, max_rank=3))
    rng = np.random.default_rng(seed)
    xs = [data.draw(view_of(s, rng, dtype)) for s in shapes]
    _check(subs, xs, dtype)


@settings(max_examples=250, **SETTINGS)
@given(data=st.data(), n_ops=st.integers(1, 3), seed=st.integers(0, 2**32 - 1),
       dtypes=st.lists(st.sampled_from(DTYPES), min_size=3, max_size=3),
       dtype_arg=st.sampled_from([None, None, np.float64, np.complex128]))
def test_fuzz_mixed_dtypes(data, n_ops, seed, dtypes, dtype_arg):
    """Operands of different dtypes (or dtype=): the result type follows numpy, values the float64 ones."""
    subs, shapes = data.draw(contraction(n_ops, max_rank=3))
    rng = np.random.default_rng(seed)
    xs = [data.draw(view_of(s, rng, dt)) for s, dt in zip(shapes, dtypes[:n_ops], strict=True)]
    kw = {} if dtype_arg is None else {"dtype": dtype_arg}
    assume(dtype_arg is None or all(np.can_cast(x.dtype, dtype_arg, "safe") for x in xs))
    want = np.result_type(*[x.dtype for x in xs]) if dtype_arg is None else np.dtype(dtype_arg)
    # the computation runs in the result type: tolerance of the narrowest input (inputs are cast exactly)
    narrow = min([want] + [x.dtype for x in xs], key=lambda d: d.itemsize // (2 if d.kind == "c" else 1))
    _check(subs, xs, narrow if n_ops < 3 else want, **kw)


@settings(max_examples=150, **SETTINGS)
@given(data=st.data(), n_ops=st.integers(1, 3), seed=st.integers(0, 2**32 - 1))
def test_fuzz_fused_ops(data, n_ops, seed):
    """ops[i] applied to operand i before the contraction, op_out to the result."""
    from gettpy import ops

    choices = [ops.identity, ops.neg, ops.abs, ops.relu, ops.leaky_relu(0.25), ops.elu(0.5), ops.gelu,
               ops.sigmoid, ops.tanh, ops.exp, ops.square, ops.scale(-1.5)]
    subs, shapes = data.draw(contraction(n_ops, max_rank=3))
    xs = _views(data, shapes, seed)
    in_ops = [data.draw(st.sampled_from(choices)) for _ in xs]
    out_op = data.draw(st.sampled_from(choices))
    try:
        ref = out_op(np.einsum(subs, *[f(x) for f, x in zip(in_ops, xs, strict=True)]))
    except ValueError:
        assume(False)
        return
    got = gettpy.einsum(subs, *xs, ops=in_ops, op_out=out_op)
    note = (f"{subs} ops={[o.name for o in in_ops]} op_out={out_op.name} shapes={[x.shape for x in xs]} "
            f"strides={[x.strides for x in xs]}")
    try:
        assert_close(got, ref, np.float64, scale=magnitude(subs, *[f(x) for f, x in zip(in_ops, xs, strict=True)]))
    except AssertionError as e:
        raise AssertionError(f"{note}: {e}") from None
