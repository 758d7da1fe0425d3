"""Regressions for bugs a code review found (each test failed before its fix)."""
from __future__ import annotations

import numpy as np
import pytest
from harness import assert_close, nonzero

import gettpy
from gettpy.errors import DtypeError, LayoutError


@pytest.fixture
def rng():
    return np.random.default_rng(99)


def test_half_inputs_fp32_result_with_three_operands_does_not_overflow():
    a = np.full((2, 10), 100, np.float16)
    b = np.full((10, 3), 100, np.float16)
    c = np.ones((3, 2), np.float16)
    got = gettpy.einsum("ij,jk,kl->il", a, b, c, dtype=np.float32)
    assert got.dtype == np.float32
    assert_close(got, np.einsum("ij,jk,kl->il", *(x.astype(np.float64) for x in (a, b, c))), np.float32)


def test_ops_as_a_tuple_of_names(rng):
    a, b = nonzero(rng, (3, 4)), nonzero(rng, (4, 5))
    assert_close(gettpy.einsum("ij,jk->ik", a, b, ops=("neg", "abs")), -a @ np.abs(b))


def test_explicit_paths_do_not_share_a_cached_program(rng):
    xs = [nonzero(rng, s) for s in ((3, 4), (4, 5), (5, 6), (6, 2))]
    ref = np.einsum("ij,jk,kl,lm->im", *xs)
    for path in ([(0, 1), (0, 1), (0, 1)], [(1, 2), (0, 1), (0, 1)], [(2, 3), (1, 2), (0, 1)]):
        assert_close(gettpy.einsum("ij,jk,kl,lm->im", *xs, optimize=["einsum_path", *path]), ref)


def test_descriptor_refuses_strides_that_are_not_whole_elements():
    buf = np.zeros(400, np.uint8)
    x = np.lib.stride_tricks.as_strided(buf.view(np.float32)[:10], shape=(4, 3), strides=(40, 6))
    with pytest.raises(LayoutError, match="whole"):
        gettpy.TensorDescriptor.of(x)


def test_out_stride_errors_name_out(rng):
    buf = np.zeros(200, np.uint8)
    out = np.lib.stride_tricks.as_strided(buf.view(np.float64), shape=(3, 5), strides=(10, 8))
    with pytest.raises(LayoutError, match="^out"):
        gettpy.einsum("ij,jk->ik", nonzero(rng, (3, 4)), nonzero(rng, (4, 5)), out=out)


def test_out_with_interleaved_but_distinct_elements_is_accepted(rng):
    buf = np.full(16, np.nan)
    out = np.lib.stride_tricks.as_strided(buf, shape=(3, 2), strides=(16, 40))  # offsets 0,2,4,5,7,9
    a, b = nonzero(rng, (3, 4)), nonzero(rng, (4, 2))
    gettpy.einsum("ij,jk->ik", a, b, out=out)
    assert_close(out, a @ b)


def test_contract_refuses_d_sharing_memory_with_a(rng):
    a = nonzero(rng, (4, 4))
    b = nonzero(rng, (4, 4))
    desc = gettpy.TensorDescriptor.of
    p = gettpy.plan(desc(a), "ik", desc(b), "kj", desc(a), "ij")
    before = a.copy()
    with pytest.raises(LayoutError, match="shares memory with A"):
        gettpy.contract(p, 1.0, a, b, 0.0, None, a)
    assert np.array_equal(a, before)


@pytest.mark.parametrize("alpha", [1.0, 0.0])
def test_contract_refuses_c_overlapping_d_unless_c_is_d(rng, alpha):
    """C may be D itself (each element of C is read just before the same element of D is written); a C that shares
    memory with D in another layout (D's transpose, D shifted by a row) is refused before D is touched, whatever
    alpha; a C apart from D, and C = D, give numpy's value."""
    n = 6
    a, b = nonzero(rng, (n, n)), nonzero(rng, (n, n))
    buf = nonzero(rng, (n + 1, n))
    d = buf[:n]
    desc = gettpy.TensorDescriptor.of
    for c, why in ((d.T, "transpose"), (buf[1:], "shifted")):
        p = gettpy.plan(desc(a), "ik", desc(b), "kj", desc(c), "ij", desc(d), "ij")
        before = buf.copy()
        with pytest.raises(LayoutError, match="C shares memory with D"):
            gettpy.contract(p, alpha, a, b, 1.0, c, d)
        assert np.array_equal(buf, before), why
    p = gettpy.plan(desc(a), "ik", desc(b), "kj", desc(d), "ij", desc(d), "ij")
    want = alpha * (a @ b) + 2.0 * d
    gettpy.contract(p, alpha, a, b, 2.0, d, d)
    assert_close(d, want)
    c = nonzero(rng, (n, n))
    p = gettpy.plan(desc(a), "ik", desc(b), "kj", desc(c), "ij", desc(d), "ij")
    gettpy.contract(p, alpha, a, b, 0.5, c, d)
    assert_close(d, alpha * (a @ b) + 0.5 * c)


def test_descriptor_dtype_mismatch_is_a_dtype_error(rng):
    a, b, d = nonzero(rng, (4, 3)), nonzero(rng, (3, 5)), np.zeros((4, 5))
    desc = gettpy.TensorDescriptor.of
    p = gettpy.plan(desc(a), "ik", desc(b), "kj", desc(d), "ij")
    with pytest.raises(DtypeError):
        gettpy.contract(p, 1.0, a.astype(np.float32), b, 0.0, None, d)


