"""Realigned rows on the GPU (OperandSpec.realign: each smem row of an input's tile one contiguous run at any
alignment, read as the aligned 16-byte words that hold it and shifted into its slots): against numpy float64 on
mma.sync tiles, k-major and mn-major, odd row pitches, M, N and K ending in partial tiles,
C with alpha and beta, an op applied as the words are shifted, misaligned base pointers and the split-K schedules
of long K."""
from __future__ import annotations

import numpy as np
import pytest
from harness import assert_close, run_forced

from gettpy import ops
from gettpy.kernels.spec import TileConfig

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

TILES = {"f16": TileConfig(128, 64, 32, 4, wm=64, wn=32), "f16/64": TileConfig(64, 64, 64, 3, wm=32, wn=32),
         "bf16": TileConfig(64, 128, 32, 3, wm=32, wn=64)}
CASES = [("f16", "f16"), ("f16", "f32"), ("f16/64", "f16"), ("bf16", "bf16")]


def _tile(name: str) -> tuple[TileConfig, str]:
    return TILES[name], name.split("/")[0]


@pytest.mark.parametrize("din,dout", CASES, ids=[f"{a}-{b}" for a, b in CASES])
@pytest.mark.parametrize("m,n,k", [(61, 51, 1037), (33, 7, 141), (70, 66, 101)])
def test_kmajor_rows(rng, din, dout, m, n, k):
    """Row-major A[m, k] and B[n, k] with K odd (no row 16-byte aligned): both read as realigned k-major rows; then
    with C, alpha and beta, and with an op on A (applied as the words are shifted)."""
    tile, din = _tile(din)
    ext = {"k": k, "m": m, "n": n}
    spec = run_forced(rng, "mk", "nk", "mn", ext, tile, din, dout)
    assert spec.a.realign and spec.b.realign and spec.a.kmajor and spec.b.kmajor
    run_forced(rng, "mk", "nk", "mn", ext, tile, din, dout, with_c=True, alpha=-1.5, beta=0.5)
    spec = run_forced(rng, "mk", "nk", "nm", ext, tile, din, dout, ops=(ops.exp, None, None, None))  # (exp(0) = 1
    #                                                                                              past K: zeroed)
    assert spec.a.realign and spec.b.realign and (spec.op_a or spec.op_b)


@pytest.mark.parametrize("din,dout", CASES, ids=[f"{a}-{b}" for a, b in CASES])
@pytest.mark.parametrize("m,n,k", [(301, 157, 75), (1155, 219, 93)])
def test_mn_major_rows(rng, din, dout, m, n, k):
    """Row-major A[k, m] and B[k, n] with M and N odd and wider than a tile (not flat): mn-major realigned rows."""
    tile, din = _tile(din)
    ext = {"k": k, "m": m, "n": n}
    spec = run_forced(rng, "km", "kn", "mn", ext, tile, din, dout)
    assert spec.a.realign and spec.b.realign and not spec.a.kmajor and not spec.b.kmajor
    spec = run_forced(rng, "km", "kn", "mn", ext, tile, din, dout, with_c=True, alpha=0.75, beta=-1.0,
                      ops=(None, ops.exp, None, None))
    assert spec.a.realign and spec.b.realign


@pytest.mark.parametrize("dtype,shift,subs", [(np.float16, 1, "mk,nk->mn"), (np.float16, 3, "nk,mk->nm"),
                                              (np.float16, 5, "km,nk->mn")])
def test_misaligned_einsum(rng, monkeypatch, gett_tiles_only, dtype, shift, subs):
    """gettpy.einsum on row-major inputs that start `shift` elements into a buffer, odd extents everywhere, long K
    (split-K schedules): numpy's values; realigned (or flat) reads launched for both inputs."""
    import gettpy
    from gettpy.backends import gpu

    specs = []
    real = gpu.launch
    monkeypatch.setattr(gpu, "launch", lambda spec, *a, **k: (specs.append(spec), real(spec, *a, **k))[1])
    ext = {"k": 300007, "m": 93, "n": 45}
    ins, out = subs.split("->")
    sa, sb = (tuple(ext[c] for c in t) for t in ins.split(","))
    ha = rng.uniform(-1, 1, sa).astype(dtype)
    hb = rng.uniform(-1, 1, sb).astype(dtype)

    def shifted(h):
        buf = cp.zeros(h.size + 8, dtype=dtype)
        x = buf[shift:shift + h.size].reshape(h.shape)
        x[...] = cp.asarray(h)
        return x

    got = gettpy.einsum(subs, shifted(ha), shifted(hb))
    ref = np.einsum(subs, ha.astype(np.float64), hb.astype(np.float64))
    scale = np.einsum(subs, np.abs(ha.astype(np.float64)), np.abs(hb.astype(np.float64)))
    assert_close(cp.asnumpy(got), ref, dtype=dtype, scale=float(scale.max()))
    assert any(s.a.realign or s.a.flat for s in specs) and any(s.b.realign or s.b.flat for s in specs), \
        [(s.a, s.b) for s in specs]
