"""Regression tests: integer contractions into a narrow integer type do not widen their inputs to 64 bits
on the CPU executor (an int8 matmul took 26x numpy's memory), and stay exact modulo 2**bits."""
import tracemalloc

import numpy as np
import pytest

import gettpy


def _peak(f) -> int:
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        f()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16])
def test_narrow_integer_matmul_memory_within_2x_numpy(dtype):
    a = np.ones((400, 400), dtype)
    gettpy.einsum("ij,jk->ik", a, a)  # (planned once: the plan cache is not counted)
    numpy_peak = _peak(lambda: np.einsum("ij,jk->ik", a, a))
    ours = _peak(lambda: gettpy.einsum("ij,jk->ik", a, a))
    assert ours <= 2 * numpy_peak + (64 << 10), (ours, numpy_peak)


_R = np.random.default_rng(3)


def _wrapped(values, dtype) -> np.ndarray:
    bits = 8 * np.dtype(dtype).itemsize
    return np.array([int(v) % 2**bits for v in np.ravel(values)], dtype=object)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint32, np.int32])
@pytest.mark.parametrize("sub", ["ik,kj->ij", "ik,kj->", "ik,kj->ji", "ik,k->i"])
def test_wraps_like_exact_integers(dtype, sub):
    a = _R.integers(0, 2**62, (5, 300)).astype(dtype)
    b = _R.integers(0, 2**62, (300, 4) if sub != "ik,k->i" else (300,)).astype(dtype)
    exact = np.einsum(sub, a.astype(object), b.astype(object))
    got = gettpy.einsum(sub, a, b)
    assert np.asarray(got).dtype == dtype
    assert (_wrapped(got, dtype) == _wrapped(exact, dtype)).all()


@pytest.mark.parametrize("alpha, beta", [(3, 0), (-7, 5), (2**63 + 5, -1)])
def test_contraction_alpha_beta_wrap(alpha, beta):
    a = _R.integers(-100, 100, (5, 300)).astype(np.int16)
    b = _R.integers(-100, 100, (300, 4)).astype(np.int16)
    c = _R.integers(-100, 100, (5, 4)).astype(np.int8)
    out = np.zeros((5, 4), np.int8)
    gettpy.Contraction("ik,kj->ij", a, b, c=c, out=out).execute(alpha=alpha, beta=beta)
    exact = alpha * (a.astype(object) @ b.astype(object)) + beta * c.astype(object)
    assert (_wrapped(out, np.int8) == _wrapped(exact, np.int8)).all()


def test_ops_on_integers_keep_64_bit_semantics():
    # an op on the sum (op_out) is applied before the cast, as on the GPU: relu of the 64-bit sum
    a = np.full((1, 2), 100, np.int8)
    b = np.full((2, 1), 1, np.int8)
    got = gettpy.einsum("ik,kj->ij", a, b, op_out="relu")  # 200: relu keeps it, the cast wraps it to -56
    assert got[0, 0] == np.int64(200).astype(np.int8)


@pytest.mark.parametrize("op", ["relu", "neg", "square"])
def test_op_out_on_a_single_element_wraps(op):
    # a 1 x 1 result: the op on the 0-d product gave a numpy scalar that assignment into int8 refused
    a = np.full((1, 2), 100, np.int8)
    b = np.full((2, 1), 1, np.int8)
    twin = {"relu": lambda v: max(v, 0), "neg": lambda v: -v, "square": lambda v: v * v}[op]
    got = gettpy.einsum("ik,kj->ij", a, b, op_out=op)
    assert int(got[0, 0]) % 256 == twin(200) % 256


def test_alpha_on_a_single_element_wraps():
    a = np.full((1, 2), 100, np.int16)
    b = np.full((2, 1), 1, np.int16)
    out = np.zeros((1, 1), np.int8)
    gettpy.Contraction("ik,kj->ij", a, b, out=out).execute(alpha=3)
    assert int(out[0, 0]) % 256 == 600 % 256
