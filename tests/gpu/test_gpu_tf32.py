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
