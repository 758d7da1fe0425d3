"""Hypothesis fuzz of the CPU path against numpy.einsum: random two- and three-operand contractions on views
(strided, reversed, broadcast, Fortran-ordered), mixed float64 / complex128 / integer / bool operands (exact and
inexact casts), `dtype=` and `out=` of another order and dtype, integer sums that wrap around; run once with the
CPU executor's own schedules and once with the GPU's (packs, split-K, folds, staged outputs) through the
`gpu_schedules_on_the_cpu` fixture of tests/conftest.py. Semirings are checked against an enumeration."""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gettpy

_DTYPES = ["float64", "complex128", "int64", "int32", "int8", "uint8", "bool"]
_SETTINGS = settings(max_examples=150, deadline=None, derandomize=True,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _values(rng, shape, dtype):
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.startswith(("int", "uint")):
        lo = 0 if dtype.startswith("u") else -100
        return rng.integers(lo, 100, size=shape).astype(dtype)
    x = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _view(rng, shape, dtype, how):
    """An operand of `shape` laid out as `how` says: "c", "f", "step" (every other element of a larger array),
    "rev" (the first axis reversed), "bcast" (the first axis broadcast from extent 1)."""
    if how == "step":
        return _values(rng, [2 * e for e in shape], dtype)[tuple(slice(None, None, 2) for _ in shape)]
    x = _values(rng, shape, dtype)
    if how == "f":
        return np.asfortranarray(x)
    if how == "rev" and x.ndim:
        return x[::-1]
    if how == "bcast" and x.ndim:
        return np.broadcast_to(x[:1], x.shape)
    return x


@st.composite
def _case(draw, n_ops):
    modes = "abcdef"[:draw(st.integers(2, 6))]
    ext = {m: draw(st.sampled_from([1, 2, 3, 5, 7, 17, 33])) for m in modes}
    subs = [draw(st.lists(st.sampled_from(modes), min_size=1, max_size=4, unique=True)) for _ in range(n_ops)]
    used = sorted(set().union(*subs))
    out = draw(st.lists(st.sampled_from(used), max_size=len(used), unique=True))
    dtypes = [draw(st.sampled_from(_DTYPES)) for _ in range(n_ops)]
    hows = [draw(st.sampled_from(["c", "f", "step", "rev", "bcast"])) for _ in range(n_ops)]
    result = draw(st.sampled_from(["plain", "dtype", "out_same", "out_other"]))
    target = draw(st.sampled_from(["float64", "complex128", "int64", "int32", "int8"]))
    seed = draw(st.integers(0, 2**31))
    eq = ",".join("".join(s) for s in subs) + "->" + "".join(out)
    return eq, ext, dtypes, hows, result, target, seed


def _check(case):
    eq, ext, dtypes, hows, result, target, seed = case
    rng = np.random.default_rng(seed)
    ins = eq.split("->")[0].split(",")
    xs = [_view(rng, [ext[m] for m in s], dt, how) for s, dt, how in zip(ins, dtypes, hows, strict=True)]
    plain = np.einsum(eq, *xs)
    kw = {}
    if result == "dtype":
        kw = {"dtype": np.dtype(target), "casting": "unsafe"}
    elif result.startswith("out"):
        dt = plain.dtype if result == "out_same" else np.dtype(target)
        if plain.dtype.kind in "fc" and dt.kind in "iu":  # (truncating a rounded sum: ill-conditioned)
            dt = np.dtype(np.float64)
        kw = {"out": np.full(plain.shape[::-1], 77, dt).T, "casting": "unsafe"}
    with np.errstate(all="ignore"), _no_warning_filter():
        if "out" in kw:
            ref = np.einsum(eq, *xs, out=np.empty(plain.shape, kw["out"].dtype), casting="unsafe")
        else:
            ref = np.einsum(eq, *xs, **kw)
        got = gettpy.einsum(eq, *xs, **kw)
    if "out" in kw:
        assert got is kw["out"]
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.dtype == ref.dtype and got.shape == ref.shape, (eq, dtypes, result, target)
    if ref.dtype.kind in "biu":
        np.testing.assert_array_equal(got, ref, err_msg=f"{eq} {dtypes} {hows} {result} {target}")
    else:
        # numpy sums in the result type too; the bound is a few roundings of the largest partial sum
        scale = np.einsum(eq, *[np.abs(x.astype(np.complex128)).astype(np.float64) for x in xs])
        tol = 1e-5 if ref.dtype.itemsize <= 4 or ref.dtype == np.complex64 else 1e-12
        assert np.all(np.abs(got - ref) <= tol * (1 + np.broadcast_to(scale, ref.shape))), (eq, dtypes, hows)


class _no_warning_filter:
    """Complex-to-real casts warn in numpy and gettpy alike (numpy's rule: the real part is kept)."""

    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


@_SETTINGS
@given(st.integers(2, 3).flatmap(_case))
def test_einsum_matches_numpy(case):
    _check(case)


@_SETTINGS
@given(st.integers(2, 3).flatmap(_case))
def test_einsum_matches_numpy_on_gpu_schedules(gpu_schedules_on_the_cpu, case):
    _check(case)


_SEMIRINGS = {"max_plus": (np.add, np.max), "min_plus": (np.add, np.min), "max_times": (np.multiply, np.max),
              "min_times": (np.multiply, np.min)}


@_SETTINGS
@given(st.integers(2, 3).flatmap(_case), st.sampled_from(sorted(_SEMIRINGS)))
def test_semirings_match_enumeration(case, name):
    eq, ext, _, hows, _, _, seed = case
    rng = np.random.default_rng(seed)
    ins, out = eq.split("->")
    ins = ins.split(",")
    xs = [_view(rng, [ext[m] for m in s], "float64", how) for s, how in zip(ins, hows, strict=True)]
    if name.endswith("times"):  # (a semiring on non-negative values only)
        xs = [np.abs(x) for x in xs]
    comb, red = _SEMIRINGS[name]
    modes = sorted(set("".join(ins)))
    total = None
    for x, s in zip(xs, ins, strict=True):  # every operand broadcast over all modes, combined with ⊗
        v = np.einsum(f"{s}->{''.join(m for m in modes if m in s)}", x)
        v = v.reshape([ext[m] if m in s else 1 for m in modes])
        total = v if total is None else comb(total, v)
    total = np.broadcast_to(total, [ext[m] for m in modes])
    summed = tuple(i for i, m in enumerate(modes) if m not in out)
    ref = red(total, axis=summed) if summed else total
    kept = "".join(m for m in modes if m in out)
    ref = np.einsum(f"{kept}->{out}", ref)
    got = gettpy.einsum(eq, *xs, semiring=name)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
