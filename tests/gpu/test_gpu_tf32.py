"""TF32 / 3xTF32 on the GPU's tensor cores against float64 (skipped without a device)."""
from __future__ import annotations

import numpy as np
import pytest

import gettpy
from gettpy.dtypes import round_tf32

pytestmark = pytest.mark.gpu

CASES = [("ik,kj->ij", (130, 300), (300, 70)), ("abk,kc->cab", (9, 17, 64), (64, 70)),
         ("bik,bkj->bij", (3, 40, 33), (3, 33, 50)), ("ki,kj->ij", (300, 129), (300, 131)),
         ("ki,jk->ij", (257, 136), (200, 257))]  # (C order: A's rows along i in 16-byte vectors, B's along k)


@pytest.mark.parametrize("mode", ["tf32", "3xtf32"])
@pytest.mark.parametrize("subs,sa,sb", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("order", ["C", "F"])
def test_gpu_tf32(subs, sa, sb, mode, order):
    import cupy as cp

    rng = np.random.default_rng(3)
    ha = np.asarray(rng.uniform(-1, 1, sa).astype(np.float32), order=order)
    hb = np.asarray(rng.uniform(-1, 1, sb).astype(np.float32), order=order)
    got = cp.asnumpy(gettpy.einsum(subs, cp.asarray(ha, order=order), cp.asarray(hb, order=order), compute=mode))
    scale = np.einsum(subs, np.abs(ha).astype(np.float64), np.abs(hb).astype(np.float64)).max()
    if mode == "tf32":
        want = np.einsum(subs, round_tf32(ha).astype(np.float64), round_tf32(hb).astype(np.float64))
        tol = 1e-5  # only the float32 accumulation differs from the emulation
    else:
        want = np.einsum(subs, ha.astype(np.float64), hb.astype(np.float64))
        tol = 1e-5  # 3xTF32: close to float32
    assert np.abs(got - want).max() <= tol * scale


def test_gpu_tf32_is_less_exact_than_3xtf32():
    import cupy as cp

    rng = np.random.default_rng(4)
    ha, hb = rng.uniform(-1, 1, (256, 512)).astype(np.float32), rng.uniform(-1, 1, (512, 256)).astype(np.float32)
    a, b = cp.asarray(ha), cp.asarray(hb)
    exact = ha.astype(np.float64) @ hb.astype(np.float64)
    e1 = np.abs(cp.asnumpy(gettpy.einsum("ik,kj->ij", a, b, compute="tf32")) - exact).max()
    e3 = np.abs(cp.asnumpy(gettpy.einsum("ik,kj->ij", a, b, compute="3xtf32")) - exact).max()
    e0 = np.abs(cp.asnumpy(gettpy.einsum("ik,kj->ij", a, b)) - exact).max()
    assert e3 < e1 / 50 and e0 < e1 / 50


@pytest.mark.parametrize("mode", ["tf32", "3xtf32"])
def test_mn_major_fragments_permuted_and_resident(mode, monkeypatch):
    """TF32 tiles whose fragments come from m / n-major stages in two layouts the plain cases miss: B[k, p, q] (q
    fastest) under D[p, q, i] (p fastest), read in vectors along q into slot-permuted stages (vs = 4); and a narrow
    A[i, k] (i fastest, 24 rows) held as one resident panel, with relu on B. Against the float64 of the inputs as
    rounded to tf32 (as test_gpu_tf32), and the launched specs show both layouts."""
    import cupy as cp

    from gettpy.backends import gpu

    specs = []
    real = gpu.launch
    monkeypatch.setattr(gpu, "launch", lambda spec, *a, **kw: (specs.append(spec), real(spec, *a, **kw))[1])
    rng = np.random.default_rng(11)
    f = round_tf32 if mode == "tf32" else (lambda x: x)

    ha = rng.uniform(-1, 1, (300, 129)).astype(np.float32)
    hb = rng.uniform(-1, 1, (129, 4, 128)).astype(np.float32)
    out = cp.empty((300, 128, 4), cp.float32).transpose(2, 1, 0)  # (D[p, q, i] with p fastest)
    gettpy.einsum("ik,kpq->pqi", cp.asfortranarray(cp.asarray(ha)), cp.asarray(hb), out=out, compute=mode)
    want = np.einsum("ik,kpq->pqi", f(ha).astype(np.float64), f(hb).astype(np.float64))
    scale = np.einsum("ik,kpq->pqi", np.abs(ha).astype(np.float64), np.abs(hb).astype(np.float64)).max()
    assert np.abs(cp.asnumpy(out) - want).max() <= 1e-5 * scale
    assert any(s.tf32 and (s.a.vs > 1 or s.b.vs > 1) for s in specs), [(s.a, s.b) for s in specs]

    specs.clear()
    ha = rng.uniform(-1, 1, (24, 301)).astype(np.float32)
    hb = rng.uniform(-1, 1, (301, 5000)).astype(np.float32)
    got = gettpy.einsum("ik,kj->ij", cp.asfortranarray(cp.asarray(ha)), cp.asarray(hb), ops=(None, "relu"),
                        compute=mode)
    want = f(ha).astype(np.float64) @ np.maximum(f(hb).astype(np.float64), 0)
    scale = (np.abs(ha).astype(np.float64) @ np.abs(hb).astype(np.float64)).max()
    assert np.abs(cp.asnumpy(got) - want).max() <= 1e-5 * scale
    assert any(s.tf32 and s.tile.resident_a and not s.a.kmajor for s in specs), [s.tile for s in specs]
