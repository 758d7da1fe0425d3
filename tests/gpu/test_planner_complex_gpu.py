"""GPU tests of the complex schedules: einsum, Contraction and plan / contract on complex CuPy arrays run one launch
of the complex kernel on the operands in place (no pack, no staged output), in both memory orders, on views, odd
extents, a batch mode and tensor modes, with conj, complex alpha and beta and a C read; a large gathered operand
re-read by many CTAs is packed first; an input not aligned to its element and a real D take the real
launches. Results against numpy in complex128 on the same values; outputs start as NaN. Skipped without a CUDA
device."""
from __future__ import annotations

import numpy as np
import pytest

import gettpy
from gettpy import ops
from gettpy.backends import gpu_complex
from gettpy.kernels import permute

pytestmark = pytest.mark.gpu

TOL = {np.complex64: 4e-6, np.complex128: 1e-13}


def _values(rng, shape, dtype):
    return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(dtype)


def _device(h, kind):
    """Host array `h` on the device laid out as `kind` ("C", "F", "view": a window of a larger array)."""
    import cupy as cp

    if kind == "F":
        return cp.asfortranarray(cp.asarray(h))
    if kind == "view":
        big = cp.zeros(tuple(e + 3 for e in h.shape), h.dtype)
        window = big[tuple(slice(1, 1 + e) for e in h.shape)]
        window[...] = cp.asarray(h)
        return window
    return cp.ascontiguousarray(cp.asarray(h))


def _close(got, ref, mag, dtype):
    import cupy as cp

    g = cp.asnumpy(got).astype(np.complex128)
    assert not np.isnan(g).any(), "an element was never written"
    err = np.abs(g - ref)
    assert (err <= TOL[dtype] * (mag + 1.0)).all(), float(err.max())


def _mag(subs, a, b):
    return np.einsum(subs, np.abs(a), np.abs(b))


@pytest.fixture
def seen(monkeypatch):
    """Records execute_fused's answers (True: one launch ran) and the tiled copies (packs, staged outputs)."""
    calls = {"fused": [], "copies": 0}
    fused = gpu_complex.execute_fused

    def spy_fused(*args, **kw):
        r = fused(*args, **kw)
        calls["fused"].append(r)
        return r

    def counted(f):
        def g(*args, **kw):
            calls["copies"] += 1
            return f(*args, **kw)
        return g

    monkeypatch.setattr(gpu_complex, "execute_fused", spy_fused)
    monkeypatch.setattr(permute, "permute_copy", counted(permute.permute_copy))
    monkeypatch.setattr(permute, "permute_copy_pair", counted(permute.permute_copy_pair))
    return calls


CASES = [
    ("ik,kj->ij", dict(i=131, k=67, j=97), "C", "C", np.complex64),
    ("ik,kj->ij", dict(i=131, k=67, j=97), "F", "F", np.complex128),
    ("ik,jk->ij", dict(i=129, k=75, j=141), "view", "view", np.complex64),
    ("bik,bkj->bij", dict(b=3, i=61, k=45, j=77), "C", "F", np.complex128),
    ("abc,cbd->ad", dict(a=67, b=9, c=11, d=83), "F", "C", np.complex64),
]


def _shapes(subs, ext):
    lhs, md = subs.split("->")
    return tuple(tuple(ext[m] for m in x) for x in (*lhs.split(","), md))


@pytest.mark.parametrize("subs,ext,la,lb,dtype", CASES)
def test_einsum_one_launch_in_place(subs, ext, la, lb, dtype, rng, seen):
    sa, sb, _ = _shapes(subs, ext)
    ha, hb = _values(rng, sa, dtype), _values(rng, sb, dtype)
    got = gettpy.einsum(subs, _device(ha, la), _device(hb, lb))
    assert seen["fused"] == [True] and seen["copies"] == 0, seen
    _close(got, np.einsum(subs, ha.astype(np.complex128), hb.astype(np.complex128)), _mag(subs, ha, hb), dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_contraction_and_contract_one_launch(dtype, rng, seen):
    """Contraction (conj on A, complex alpha and beta, C read) and plan / contract: schedules without stagings,
    one launch each, numpy's results."""
    import cupy as cp

    subs, ext = "bik,bkj->bij", dict(b=3, i=61, k=45, j=77)
    sa, sb, sd = _shapes(subs, ext)
    ha, hb, hc = _values(rng, sa, dtype), _values(rng, sb, dtype), _values(rng, sd, dtype)
    a, b, c = _device(ha, "F"), _device(hb, "view"), _device(hc, "F")
    out = cp.full(sd, np.nan, dtype)
    con = gettpy.Contraction(subs, a, b, c=c, out=out, ops=[ops.conj, None])
    assert not con.plan().plan.staged
    alpha, beta = 0.5 - 1.5j, 2 + 0.25j
    con.execute(alpha, beta)
    ref = alpha * np.einsum(subs, np.conj(ha.astype(np.complex128)), hb) + beta * hc
    _close(out, ref, abs(alpha) * _mag(subs, ha, hb) + abs(beta), dtype)

    d = cp.full(sd, np.nan, dtype)
    desc = gettpy.TensorDescriptor.of
    p = gettpy.plan(desc(a), "bik", desc(b), "bkj", desc(d), "bij")
    assert not p.plan.staged
    gettpy.contract(p, 1.0, a, b, 0.0, None, d)
    assert seen["fused"] == [True, True] and seen["copies"] == 0, seen
    _close(d, np.einsum(subs, ha.astype(np.complex128), hb), _mag(subs, ha, hb), dtype)


def test_large_gathered_operand_packed(rng, seen):
    """A of 1024 x 1024 complex64 read with 4 elements between neighbours along both modes (one element a sector),
    re-read by the CTA columns of a 2048-wide B: packed, then one launch; numpy's result."""
    import cupy as cp

    hbuf = _values(rng, (4 * 1024 * 1024,), np.complex64)
    ha, hb = hbuf[::4].reshape(1024, 1024), _values(rng, (1024, 2048), np.complex64)
    a = cp.lib.stride_tricks.as_strided(cp.asarray(hbuf), shape=(1024, 1024), strides=(4 * 1024 * 8, 4 * 8))
    got = gettpy.einsum("ik,kj->ij", a, cp.asarray(hb))
    assert seen["fused"] == [True] and seen["copies"] == 1, seen
    mag = np.abs(ha).astype(np.float64) @ np.abs(hb).astype(np.float64)
    _close(got, ha.astype(np.complex128) @ hb.astype(np.complex128), mag, np.complex64)


def test_under_aligned_input_takes_real_launches(rng, seen):
    """A complex64 A 4 bytes into a float32 buffer (not aligned to its element, written as float32): not packed,
    the one launch refused, the real launches give numpy's result."""
    import cupy as cp

    ha, hb = _values(rng, (131, 67), np.complex64), _values(rng, (67, 97), np.complex64)
    buf = cp.zeros(2 * ha.size + 2, cp.float32)
    buf[1:-1] = cp.asarray(ha.view(np.float32).ravel())
    a = buf[1:-1].view(cp.complex64).reshape(ha.shape)
    assert a.data.ptr % 8 == 4
    got = gettpy.einsum("ik,kj->ij", a, cp.asarray(hb))
    assert True not in seen["fused"], seen
    _close(got, np.einsum("ik,kj->ij", ha.astype(np.complex128), hb), _mag("ik,kj->ij", ha, hb), np.complex64)


@pytest.mark.filterwarnings("ignore:Casting complex values to real")
def test_real_output_takes_real_launches(rng, seen):
    """complex64 operands into a float32 D (plan / contract): the real launches over the planes (the one launch
    refused); D is the real part of numpy's product."""
    import cupy as cp

    ha, hb = _values(rng, (131, 67), np.complex64), _values(rng, (67, 97), np.complex64)
    a, b = cp.asarray(ha), cp.asfortranarray(cp.asarray(hb))
    d = cp.full((131, 97), np.nan, cp.float32)
    desc = gettpy.TensorDescriptor.of
    p = gettpy.plan(desc(a), "ik", desc(b), "kj", desc(d), "ij")
    gettpy.contract(p, 1.0, a, b, 0.0, None, d)
    assert True not in seen["fused"], seen
    ref = ha.astype(np.complex128) @ hb.astype(np.complex128)
    got = cp.asnumpy(d).astype(np.float64)
    assert np.abs(got - ref.real).max() <= TOL[np.complex64] * (_mag("ik,kj->ij", ha, hb).max() + 1.0)
