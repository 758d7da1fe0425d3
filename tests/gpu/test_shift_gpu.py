"""Shifted rows on the GPU (OperandSpec.shift: each row's k-tile one contiguous run starting at any element, read as
the aligned 16-byte words that hold it and realigned in registers): against numpy float64 on mma.sync and simt
tiles, K odd (rows 2 bytes apart in alignment for 2-byte values, 4 for 4-byte ones) and ending in a partial k-tile,
odd M and N, C with alpha and beta, ops on A and B applied as the words are realigned (an op that maps 0 to inf
checks that k past K is zeroed after the op), misaligned base pointers, and the split-K schedules of a long K in
numpy's order."""
from __future__ import annotations

import numpy as np
import pytest
from harness import assert_close, inf_at_zero, run_forced

from gettpy import ops
from gettpy.kernels.spec import TileConfig

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

TILES = {"mma128": TileConfig(128, 64, 32, 4, wm=64, wn=32), "mma64": TileConfig(64, 64, 64, 3, wm=32, wn=32),
         "simt": TileConfig(64, 64, 16, 3, tm=4, tn=4)}
CASES = [("mma128", "f16", "f16"), ("mma64", "bf16", "f32"), ("mma128", "f16", "f32"), ("simt", "f32", "f32"),
         ("mma64", "f32", "f32")]


@pytest.mark.parametrize("tile_id,din,dout", CASES, ids=["-".join(c) for c in CASES])
@pytest.mark.parametrize("k", [1037, 1030])
def test_forced_tiles(rng, tile_id, din, dout, k):
    """Row-major A[m, k] and B[n, k] (K odd: shifted rows; K = 1030, rows 4 bytes apart for 2-byte values: shifted
    too) on a forced tile, M = 61 and N = 51 partial; then with C, alpha and beta; then leaky_relu on A and
    inf_at_zero on B, applied to the realigned words (the zeros past K must stay zeros)."""
    ext = {"k": k, "m": 61, "n": 51}
    tile = TILES[tile_id]
    spec = run_forced(rng, "mk", "nk", "mn", ext, tile, din, dout)
    assert spec.a.shift and spec.b.shift and spec.a.kmajor and spec.b.kmajor
    run_forced(rng, "mk", "nk", "mn", ext, tile, din, dout, with_c=True, alpha=-1.5, beta=0.5)
    if tile.mma and din != "f32":
        spec = run_forced(rng, "mk", "nk", "nm", ext, tile, din, dout,
                          ops=(ops.leaky_relu(0.1), inf_at_zero(), None, None))
        assert spec.a.shift and spec.b.shift and spec.op_a and spec.op_b


@pytest.mark.parametrize("dtype,offset", [(np.float16, 1), (np.float16, 3), (np.float32, 1), (np.float16, 0)])
def test_long_k_row_major(rng, monkeypatch, dtype, offset):
    """gettpy.einsum("mk,nk->mn") in numpy's order over a long odd K (split-K and a tail slice), the inputs starting
    `offset` elements into a buffer: numpy's values, the split cores launched with both inputs shifted and no pack
    copy of either."""
    import gettpy
    from gettpy.backends import gpu

    specs = []
    real = gpu.launch
    monkeypatch.setattr(gpu, "launch", lambda spec, *a, **kw: (specs.append(spec), real(spec, *a, **kw))[1])
    m, n, k = 37, 45, 300007
    ha = rng.uniform(-1, 1, (m, k)).astype(dtype)
    hb = rng.uniform(-1, 1, (n, k)).astype(dtype)

    def placed(h):
        buf = cp.zeros(h.size + 8, dtype=dtype)
        x = buf[offset:offset + h.size].reshape(h.shape)
        x[...] = cp.asarray(h)
        return x

    got = gettpy.einsum("mk,nk->mn", placed(ha), placed(hb))
    ref = ha.astype(np.float64) @ hb.astype(np.float64).T
    scale = np.abs(ha.astype(np.float64)) @ np.abs(hb.astype(np.float64)).T
    assert_close(cp.asnumpy(got), ref, dtype=dtype, scale=float(scale.max()))
    big = [s for s in specs if s.K >= 1000]
    assert big and all(s.a.shift and s.b.shift for s in big), [(s.K, s.a, s.b) for s in specs]
