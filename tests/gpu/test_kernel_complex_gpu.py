"""GPU tests of the complex kernel: complex64 / complex128 contractions in one launch (gettpy.backends.gpu_complex.
execute_fused), against numpy in complex128 on the same values: odd extents, both memory orders, strided views,
tensor contractions over several modes, a batch mode, conj on A, B and C, complex alpha and beta with C read, real
operands next to complex ones; that the one launch really ran (and that an operand not aligned to its element size
takes the real launches instead, with the same result). Outputs start as NaN, so an element never written fails.
Skipped without a CUDA device."""
from __future__ import annotations

import numpy as np
import pytest

import gettpy
from gettpy import ops
from gettpy.backends import gpu_complex

pytestmark = pytest.mark.gpu

TOL = {np.complex64: 4e-6, np.complex128: 1e-13}


def _values(rng, shape, dtype):
    x = rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)
    return x.astype(dtype)


def _device(h, order):
    import cupy as cp

    if order == "F":
        return cp.asfortranarray(cp.asarray(h))
    if order == "sliced":  # every other element of a larger array along each axis
        big = np.zeros(tuple(2 * e for e in h.shape), h.dtype)
        big[tuple(slice(None, None, 2) for _ in h.shape)] = h
        return cp.asarray(big)[tuple(slice(None, None, 2) for _ in h.shape)]
    return cp.ascontiguousarray(cp.asarray(h))


def _close(got, ref, mag, dtype):
    """|got - ref| within TOL[dtype] of the summed terms' magnitude (sum of |a| |b|), elementwise."""
    import cupy as cp

    g = cp.asnumpy(got).astype(np.complex128)
    assert not np.isnan(g).any(), "an element was never written"
    err = np.abs(g - ref)
    bound = TOL[dtype] * (mag + 1.0)
    assert (err <= bound).all(), (float(err.max()), float((err / (mag + 1.0)).max()))


@pytest.fixture
def fused_calls(monkeypatch):
    """Counts execute_fused's launches (True) and refusals (False)."""
    seen = []
    real = gpu_complex.execute_fused

    def spy(*args, **kw):
        r = real(*args, **kw)
        seen.append(r)
        return r

    monkeypatch.setattr(gpu_complex, "execute_fused", spy)
    return seen


CASES = [  # (id, subscripts, extents, whether einsum runs it as one kernel launch: the others may take other routes)
    ("gemm_odd", "ik,kj->ij", {"i": 131, "j": 97, "k": 67}, True),
    ("gemm_515", "ik,kj->ij", {"i": 515, "j": 513, "k": 517}, True),
    ("contract_two_modes", "aebf,dfce->abcd", {"a": 9, "b": 7, "c": 11, "d": 5, "e": 13, "f": 3}, True),
    ("batch", "bij,bjk->bik", {"b": 5, "i": 33, "j": 19, "k": 41}, True),
    ("outer", "i,j->ij", {"i": 70, "j": 45}, False),
    ("dot", "k,k->", {"k": 1001}, False),
]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=["c64", "c128"])
@pytest.mark.parametrize("order", ["C", "F", "sliced"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_einsum_one_launch(case, order, dtype, rng, fused_calls):
    _, subs, ext, one = case
    lhs, out = subs.split("->")
    ha, hb = (_values(rng, tuple(ext[m] for m in t), dtype) for t in lhs.split(","))
    got = gettpy.einsum(subs, _device(ha, order), _device(hb, "C" if order == "F" else order))
    assert got.dtype == np.dtype(dtype)
    assert all(fused_calls) and (fused_calls or not one), fused_calls
    ref = np.einsum(subs, ha.astype(np.complex128), hb.astype(np.complex128))
    _close(got, ref, np.einsum(subs, np.abs(ha).astype(np.float64), np.abs(hb).astype(np.float64)), dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=["c64", "c128"])
@pytest.mark.parametrize("op_a,op_b", [("conj", None), (None, "conj"), ("conj", "conj")])
def test_conj_ops(op_a, op_b, dtype, rng, fused_calls):
    subs = "bda,dc->abc"
    ha, hb = _values(rng, (40, 33, 21), dtype), _values(rng, (33, 19), dtype)
    got = gettpy.einsum(subs, _device(ha, "C"), _device(hb, "F"), ops=[op_a, op_b])
    assert fused_calls and all(fused_calls)
    fa = np.conj(ha) if op_a else ha
    fb = np.conj(hb) if op_b else hb
    ref = np.einsum(subs, fa.astype(np.complex128), fb.astype(np.complex128))
    _close(got, ref, np.einsum(subs, np.abs(ha).astype(np.float64), np.abs(hb).astype(np.float64)), dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=["c64", "c128"])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("conj_c", [False, True])
def test_alpha_beta_c(conj_c, order, dtype, rng, fused_calls):
    """D = alpha conj(A) B + beta op_c(C) through the plan API, C a separate array and C = D in place."""
    import cupy as cp

    ha, hb, hc = _values(rng, (77, 29), dtype), _values(rng, (29, 45), dtype), _values(rng, (77, 45), dtype)
    a, b = _device(ha, order), _device(hb, order)
    alpha, beta = 0.75 - 1.25j, -0.5 + 0.25j
    fa = np.conj(ha).astype(np.complex128)
    fc = (np.conj(hc) if conj_c else hc).astype(np.complex128)
    ref = alpha * (fa @ hb.astype(np.complex128)) + beta * fc
    mag = np.abs(ha).astype(np.float64) @ np.abs(hb).astype(np.float64) + np.abs(hc)
    for in_place in (False, True):
        c = _device(hc, order)
        d = c if in_place else cp.full((77, 45), complex(np.nan, np.nan), dtype=dtype,
                                       order="F" if order == "F" else "C")
        desc = gettpy.TensorDescriptor.of
        plan = gettpy.plan(desc(a, op=ops.conj), "ik", desc(b), "kj", desc(c, op=ops.conj if conj_c else None), "ij",
                           desc(d), "ij")
        gettpy.contract(plan, alpha, a, b, beta, c, d)
        assert fused_calls and all(fused_calls)
        _close(d, ref, mag, dtype)


@pytest.mark.parametrize("dts,compute", [((np.float32, np.complex64), "complex64"),
                                         ((np.complex64, np.float64), "complex128")], ids=["f32xc64", "c64xf64"])
def test_real_next_to_complex(dts, compute, rng, fused_calls):
    """A real operand read as x + 0i by the complex kernel (plan API, no promotion copy), complex64 summed in
    complex128 where asked."""
    import cupy as cp

    def values(shape, dt):
        return _values(rng, shape, dt) if np.dtype(dt).kind == "c" else rng.uniform(-1, 1, shape).astype(dt)

    ha, hb = values((53, 31), dts[0]), values((31, 27), dts[1])
    a, b = _device(ha, "C"), _device(hb, "F")
    d = cp.full((53, 27), complex(np.nan, np.nan), dtype=compute)
    desc = gettpy.TensorDescriptor.of
    plan = gettpy.plan(desc(a), "ik", desc(b), "kj", desc(d), "ij", compute_type=compute)
    gettpy.contract(plan, 1.0, a, b, 0.0, d, d)
    assert fused_calls and all(fused_calls)
    ref = ha.astype(np.complex128) @ hb.astype(np.complex128)
    _close(d, ref, np.abs(ha).astype(np.float64) @ np.abs(hb).astype(np.float64), np.dtype(compute).type)


def test_unaligned_operand_takes_the_real_launches(rng, fused_calls):
    """A complex64 view that starts 4 bytes into a float32 buffer is not 8-byte aligned: execute_fused refuses
    it (returns False) and the real launches give the same result."""
    import cupy as cp

    ha, hb = _values(rng, (37, 23), np.complex64), _values(rng, (23, 41), np.complex64)
    buf = cp.zeros(2 * ha.size + 1, dtype=cp.float32)
    a = buf[1:].view(cp.complex64).reshape(ha.shape)
    a[...] = cp.asarray(ha)
    assert a.data.ptr % 8 == 4
    got = gettpy.einsum("ik,kj->ij", a, _device(hb, "C"))
    assert fused_calls and not any(fused_calls)
    ref = ha.astype(np.complex128) @ hb.astype(np.complex128)
    _close(got, ref, np.abs(ha).astype(np.float64) @ np.abs(hb).astype(np.float64), np.complex64)
