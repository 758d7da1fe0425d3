"""TF32 and 3xTF32 (opt-in compute types for float32 operands): the rounding emulation, the CPU executor,
the plan and kernel specialisation (NVRTC-compiled for sm_90), and errors."""
from __future__ import annotations

import numpy as np
import pytest

import gettpy
from gettpy.dtypes import round_tf32
from gettpy.errors import DtypeError


def test_round_tf32_enumerated_against_the_definition():
    """Nearest with ties away from zero, 10 mantissa bits: checked on every low-13-bit pattern of a few
    values, against an independent integer computation."""
    rng = np.random.default_rng(0)
    hi = rng.integers(0, 2**19, size=64, dtype=np.uint64) << np.uint64(13)
    bits = (hi[:, None] + np.arange(2**13, dtype=np.uint64)[None, :]).ravel() & np.uint64(0x7F7FFFFF)
    x = bits.astype(np.uint32).view(np.float32)
    got = round_tf32(x).view(np.uint32).astype(np.uint64)
    low = bits & np.uint64(0x1FFF)
    want = (bits - low) + np.where(low >= 0x1000, np.uint64(0x2000), np.uint64(0))
    np.testing.assert_array_equal(got, want)
    assert np.isnan(round_tf32(np.array([np.nan], np.float32)))[0]
    assert round_tf32(np.array([np.inf, -np.inf], np.float32)).tolist() == [np.inf, -np.inf]
    assert round_tf32(np.array([-1.0 - 2.0**-11], np.float32))[0] == np.float32(-1.0 - 2.0**-10)  # tie: away


@pytest.mark.parametrize("mode", ["tf32", "3xtf32"])
def test_cpu_executor_tf32_modes(mode):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((40, 300)).astype(np.float32)
    b = rng.standard_normal((300, 30)).astype(np.float32)
    got = gettpy.einsum("ik,kj->ij", a, b, compute=mode)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    if mode == "tf32":  # the emulation: inputs rounded to TF32, products summed in float32
        want = round_tf32(a).astype(np.float64) @ round_tf32(b).astype(np.float64)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
        assert np.abs(got - exact).max() > 1e-4  # and it is not plain float32
    else:
        np.testing.assert_allclose(got, exact, rtol=1e-5, atol=1e-4)


def test_tf32_errors():
    a = np.ones((3, 4), np.float16)
    with pytest.raises(DtypeError, match="TF32 modes take float32"):
        gettpy.einsum("ik,kj->ij", a, a.T, compute="tf32")
    with pytest.raises(DtypeError, match="opt-in compute types"):
        gettpy.einsum("ik,kj->ij", a, a.T, compute="bf16x9")


