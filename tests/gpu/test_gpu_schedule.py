"""Schedules with staging copies on a device (packed inputs, staged outputs, split-K): the 48 TCCG contractions
through every staging the shapes allow, split-K with beta and an output op, ops applied in the pack; each
result checked against numpy float64."""
from __future__ import annotations

import numpy as np
import pytest
from harness import TCCG48, allow_split_k, assert_close, einsum_of, fresh_caches, nonzero, reduced_extents

import gettpy


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("row", TCCG48, ids=[f"{r[0]}-{r[2]}" for r in TCCG48])
def test_gpu_tccg_through_forced_stagings(force_staging, row, dtype):
    """The GPU runs the same stagings (CuPy packs, split-K workspace and sums, staged copies)."""
    import cupy

    num, _, contraction, extents = row[:4]
    ext = reduced_extents(num, contraction, extents)
    c, a, b = contraction.split("-")
    rng = np.random.default_rng(num)
    arrs = [np.asfortranarray(nonzero(rng, tuple(ext[m] for m in t)).astype(dtype)) for t in (a, b)]
    dev = [cupy.asarray(x, order="F") for x in arrs]
    out = cupy.full(tuple(ext[m] for m in c), cupy.nan, dtype=dtype, order="F")
    gettpy.einsum(einsum_of(contraction), *dev, out=out)
    ref = np.einsum(einsum_of(contraction), *[x.astype(np.float64) for x in arrs])
    assert_close(cupy.asnumpy(out), ref, np.float16 if dtype == "float16" else np.float32)


@pytest.mark.gpu
def test_gpu_split_k_with_beta_c_and_output_op(monkeypatch):
    """The GPU's split-K epilogue (CuPy sum, beta * op_c(C), op_d) against numpy float64."""
    import cupy

    allow_split_k(monkeypatch)  # (and any run: the copy to the GPU makes k stride 1)
    fresh_caches()
    rng = np.random.default_rng(12)
    a = nonzero(rng, (64, 24, 40)).astype(np.float32).transpose(1, 2, 0)
    b = nonzero(rng, (64, 56)).astype(np.float32)
    c = nonzero(rng, (56, 40, 24)).astype(np.float32).transpose(2, 1, 0)
    da, db, dc = cupy.asarray(a), cupy.asarray(b), cupy.asarray(c)
    dd = cupy.full((24, 40, 56), cupy.nan, dtype=cupy.float32)
    desc = gettpy.TensorDescriptor
    p = gettpy.plan(desc.of(da), "xyk", desc.of(db), "kz", desc.of(dc, "abs"), "xyz", desc.of(dd, "tanh"), "xyz")
    assert p.plan.split_mode is not None
    gettpy.contract(p, 0.5, da, db, 2.0, dc, dd)
    ref = np.tanh(0.5 * np.einsum("xyk,kz->xyz", a.astype(np.float64), b.astype(np.float64))
                  + 2.0 * np.abs(c.astype(np.float64)))
    assert_close(cupy.asnumpy(dd), ref, np.float32)
    fresh_caches()


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_gpu_ops_applied_in_the_pack(dtype):
    """The same on the GPU: the op runs in a CuPy elementwise kernel built from its CUDA expression."""
    import cupy as cp

    from gettpy import ops

    rng = np.random.default_rng(6)
    ha = rng.uniform(-1, 1, (1100, 96)).astype(dtype)
    hb = np.asfortranarray(rng.uniform(-1, 1, (96, 1050)).astype(dtype))
    op = ops.leaky_relu(0.1)
    got = gettpy.einsum("ik,kj->ij", cp.asarray(ha), cp.asarray(hb), ops=[op, ops.gelu])
    ct = np.float64 if dtype == np.float64 else np.float32
    fa = np.where(ha > 0, ha, ct(0.1) * ha.astype(ct)).astype(dtype).astype(np.float64)
    fb = ops.gelu(hb.astype(ct)).astype(dtype).astype(np.float64)
    assert_close(cp.asnumpy(got), fa @ fb, dtype)
