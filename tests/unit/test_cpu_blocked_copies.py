"""The CPU executor's block copies (backends/cpu.py `_blocked_product`): inputs BLAS cannot read in place
(reversed, stepped, transposed or broadcast views whose digits do not merge into a matrix, or of another type
than the accumulation) are copied a block at a time. With the block forced down to a few elements, every
split of the b, m and n digits runs; the results equal numpy's float64 / complex128 einsum."""
from __future__ import annotations

import importlib
import string

import numpy as np
import pytest

import gettpy
from gettpy.plan.cache import clear_plan_cache

cpu_mod = importlib.import_module("gettpy.backends.cpu")
einsum_mod = importlib.import_module("gettpy.einsum")


def _view(rng, modes: str, ext: dict, dtype):
    """A random view with these modes: transposed, reversed / stepped along some axes, sometimes broadcast."""
    order = list(modes)
    rng.shuffle(order)
    steps = [int(rng.choice([1, 2, -1, -2])) for _ in order]
    base = rng.standard_normal([ext[m] * abs(s) for m, s in zip(order, steps, strict=True)])
    if np.dtype(dtype).kind == "c":
        base = base + 1j * rng.standard_normal(base.shape)
    base = (3 * base if np.dtype(dtype).kind == "i" else base).astype(dtype)
    v = base[tuple(slice(None, None, s) for s in steps)]
    if order and rng.random() < 0.2:  # (one axis broadcast: stride 0)
        i = int(rng.integers(len(order)))
        v = np.broadcast_to(v[tuple(slice(0, 1) if j == i else slice(None) for j in range(len(order)))], v.shape)
    return v.transpose([order.index(m) for m in modes])


def _case(seed: int):
    rng = np.random.default_rng(seed)
    letters = iter(string.ascii_lowercase)
    sets = {g: "".join(next(letters) for _ in range(int(rng.integers(0, 3)))) for g in ("b", "m", "n", "k")}
    if not sets["m"] + sets["n"] + sets["k"]:
        sets["k"] = next(letters)
    ext = {m: int(rng.integers(1, 6)) for s in sets.values() for m in s}
    a_modes = "".join(rng.permutation(list(sets["b"] + sets["m"] + sets["k"])))
    b_modes = "".join(rng.permutation(list(sets["b"] + sets["k"] + sets["n"])))
    out = "".join(rng.permutation(list(sets["b"] + sets["m"] + sets["n"])))
    dtypes = [(np.float64, np.float64), (np.float32, np.float32), (np.complex128, np.complex128),
              (np.float32, np.float64), (np.complex64, np.float64), (np.float16, np.float32),
              (np.int8, np.float64)][seed % 7]
    a = _view(rng, a_modes, ext, dtypes[0])
    b = _view(rng, b_modes, ext, dtypes[1])
    return f"{a_modes},{b_modes}->{out}", a, b, rng


@pytest.fixture(params=[1, 64], ids=["cut-rows", "cut-k"])
def tiny_blocks(monkeypatch, request):
    """Blocks of 16 bytes; with MIN_BLOCK_ROWS 1 the m / n digits are cut first, with 64 (more rows than these
    cases have) the k digits where there are some."""
    calls = []
    real = cpu_mod._blocked_product

    def counted(*args, **kw):
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(cpu_mod, "COPY_BLOCK", 16)
    monkeypatch.setattr(cpu_mod, "MIN_BLOCK_ROWS", request.param)
    monkeypatch.setattr(cpu_mod, "_blocked_product", counted)
    clear_plan_cache()
    einsum_mod.clear_program_cache()
    yield calls
    clear_plan_cache()
    einsum_mod.clear_program_cache()


def _ref(eq, a, b):
    wide = [x.astype(np.complex128 if np.iscomplexobj(x) else np.float64) for x in (a, b)]
    return np.einsum(eq, *wide), np.einsum(eq, *(np.abs(x) for x in wide))


def _tol(a, b):
    return 1e-5 if {np.dtype(np.float32), np.dtype(np.complex64)} & {a.dtype, b.dtype} else 1e-12


@pytest.mark.parametrize("seed", range(80))
def test_random_views_in_tiny_blocks(seed, tiny_blocks):
    eq, a, b, _ = _case(seed)
    got = gettpy.einsum(eq, a, b)
    ref, scale = _ref(eq, a, b)
    assert np.all(np.abs(got - ref) <= _tol(a, b) * np.maximum(scale, 1)), eq


@pytest.mark.parametrize("seed", range(0, 80, 4))
def test_random_views_into_out_layouts(seed, tiny_blocks):
    """The blocks written straight into `out` (reversed or transposed), or through a temporary."""
    eq, a, b, rng = _case(seed)
    ref, scale = _ref(eq, a, b)
    dtype = np.result_type(a, b)
    base = np.full(tuple(2 * s for s in ref.shape[::-1]), 7, dtype=dtype)
    out = base[tuple(slice(None, None, -2) for _ in ref.shape)].T  # (reversed, stepped, transposed)
    r = gettpy.einsum(eq, a, b, out=out)
    assert r is out
    assert np.all(np.abs(out - ref) <= _tol(a, b) * np.maximum(scale, 1)), eq


def test_tiny_blocks_are_taken(tiny_blocks):
    """The cases above do run the block copies (most of them), so the test is not vacuous."""
    taken = 0
    for seed in range(80):
        before = len(tiny_blocks)
        eq, a, b, _ = _case(seed)
        clear_plan_cache()
        einsum_mod.clear_program_cache()
        gettpy.einsum(eq, a, b)
        taken += len(tiny_blocks) > before
    assert taken >= 30, f"only {taken} of 80 cases ran the block copies"


def test_big_strided_gemm_in_blocks():
    """At the real block size: a reversed, stepped GEMM of 1000 x 500 x 334 equals numpy's."""
    rng = np.random.default_rng(5)
    m, n = rng.standard_normal((1000, 1000)), rng.standard_normal((1000, 1000))
    a, b = m[::-1, ::2], n[::2, ::-3]
    np.testing.assert_allclose(gettpy.einsum("ij,jk->ik", a, b), a @ b, rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(gettpy.einsum("ij,jk->ki", a, b), (a @ b).T, rtol=1e-12, atol=1e-10)
