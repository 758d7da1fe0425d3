"""GPU test of `gettpy.tune`: candidates are verified against the heuristic's float64-checked result and
timed as CUDA-graph replays (`gettpy.tune._device_ms`), and the recorded winner is what a later einsum runs,
checked against numpy float64."""
from __future__ import annotations

import numpy as np
import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("isolated")]


def test_gpu_tune_ccsd_t_shape():
    """A ccsd_t-shaped contraction (#35's modes at a reduced size: a small input read through permuted slots,
    which the heuristic packs, so its schedule has two launches): every trial verified or refused with a
    reason, best first, the heuristic among them; the tuned einsum matches numpy float64."""
    import cupy as cp

    import gettpy
    from gettpy.tune import _device_ms

    rng = np.random.default_rng(35)
    ext = {"a": 16, "b": 16, "c": 16, "d": 16, "e": 16, "f": 16, "g": 24}
    sa, sb = (tuple(ext[m] for m in t) for t in ("dfgb", "geac"))
    ha, hb = (rng.uniform(-1, 1, s).astype(np.float16) for s in (sa, sb))
    a, b = cp.asarray(np.asfortranarray(ha)), cp.asarray(np.asfortranarray(hb))
    trials = gettpy.tune("dfgb,geac->abcdef", a, b, samples=8, top=3)
    ok = [t for t in trials if t.ok]
    assert ok and all(t.measured_ms > 0 for t in ok) and all(t.note for t in trials if not t.ok)
    assert [t.measured_ms for t in ok] == sorted(t.measured_ms for t in ok) and trials[0].ok
    assert any(t.candidate.tile is None for t in ok)  # (the heuristic candidate was measured)
    got = gettpy.einsum("dfgb,geac->abcdef", a, b)
    ref = np.einsum("dfgb,geac->abcdef", ha.astype(np.float64), hb.astype(np.float64))
    assert np.abs(cp.asnumpy(got).astype(np.float64) - ref).max() <= 1e-2 * np.abs(ref).max()
    # (_device_ms on a copy of known size: positive, and no faster than the copy bandwidth allows)
    x = cp.ones(1 << 26, cp.float32)
    ms = _device_ms(lambda: x.copy(), 3)
    assert 2 * x.nbytes / (ms * 1e-3) < 5e12  # (under 5 TB/s of read + write: an H100 moves ~3)
