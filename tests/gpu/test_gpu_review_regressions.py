"""GPU regressions for bugs a code review found (each test failed before its fix)."""
from __future__ import annotations

import numpy as np
import pytest
from harness import assert_close, nonzero

import gettpy


@pytest.mark.gpu
def test_gpu_misaligned_operand_and_out():
    """A 4-byte-aligned operand (packed or gathered) and a 4-byte-aligned out still run and are right."""
    import cupy

    rng = np.random.default_rng(5)
    a_h = nonzero(rng, (256, 128)).astype(np.float32)
    b_h = nonzero(rng, (128, 64)).astype(np.float32)
    abuf = cupy.empty(256 * 128 + 1, cupy.float32)
    a = abuf[1:].reshape(256, 128)
    a[...] = cupy.asarray(a_h)
    obuf = cupy.full(256 * 64 + 1, cupy.nan, cupy.float32)
    out = obuf[1:].reshape(256, 64)
    gettpy.einsum("ik,kj->ij", a, cupy.asarray(b_h), out=out)
    assert_close(cupy.asnumpy(out), a_h.astype(np.float64) @ b_h.astype(np.float64), np.float32)
