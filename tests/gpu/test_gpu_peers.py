"""GPU test of the benchmark's like-for-like figure: gettpy writing the layout torch.einsum chose for its result
(`tccg.peers.empty_in_layout`), checked against numpy float64."""
from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


def test_gettpy_into_torch_result_layout():
    """TCCG #2's modes at a reduced size (``dca,bd->abc``): torch.einsum returns b fastest, not D's column-major
    order; the empty array made from its strides has exactly them, and gettpy's result written there matches the
    float64 reference at every element."""
    import cupy as cp

    torch = pytest.importorskip("torch")
    from tccg import peers

    rng = np.random.default_rng(2)
    ha = rng.uniform(-1, 1, (40, 12, 24)).astype(np.float32)  # d, c, a
    hb = rng.uniform(-1, 1, (8, 40)).astype(np.float32)  # b, d
    a, b = cp.asarray(np.asfortranarray(ha)), cp.asarray(np.asfortranarray(hb))
    r = torch.einsum("dca,bd->abc", torch.from_dlpack(a), torch.from_dlpack(b))
    out = peers.empty_in_layout(r, cp.float32)
    assert out.shape == tuple(r.shape) and out.strides == tuple(4 * int(s) for s in r.stride())
    peers.gettpy_call("dca,bd->abc", a, b, out, "f32", "none")()
    ref = np.einsum("dca,bd->abc", ha.astype(np.float64), hb.astype(np.float64))
    np.testing.assert_allclose(cp.asnumpy(out), ref, rtol=1e-5, atol=1e-5)
    t = torch.empty((8, 12, 24), device="cuda").permute(2, 0, 1)  # (24, 8, 12): a fastest, c, b slowest
    like = peers.empty_in_layout(t, cp.float32)
    assert like.strides == tuple(4 * int(s) for s in t.stride()) == (4, 4 * 288, 4 * 24)
