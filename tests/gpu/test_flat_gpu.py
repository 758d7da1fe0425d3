"""Flat k-tiles on the GPU (OperandSpec.flat: each k-tile of an input one contiguous run, read in aligned 16-byte
words whatever its rows' alignment, every element stored to its slot): against numpy float64 on mma.sync and simt
tiles, odd M and N, K ending in a partial k-tile, C with alpha and beta, an op on A, misaligned base pointers and
the split-K schedules of long K."""
from __future__ import annotations

import numpy as np
import pytest
from harness import assert_close, run_forced

from gettpy import ops
from gettpy.kernels.spec import TileConfig

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")

TILES = {"f16": TileConfig(128, 64, 32, 4, wm=64, wn=32), "f16/64": TileConfig(64, 64, 32, 3, wm=32, wn=32)}
CASES = [("f16", "f16"), ("f16", "f32"), ("f16/64", "f16")]


@pytest.mark.parametrize("din,dout", CASES, ids=[f"{a}-{b}" for a, b in CASES])
@pytest.mark.parametrize("m,n", [(61, 51), (33, 7), (64, 64)])
def test_forced_tiles(rng, din, dout, m, n):
    """Row-major A[k, m] and B[k, n] on a forced tile: rows of odd length read flat (rows of whole 16-byte vectors as
    before); then with C, alpha and beta, and with relu on A (applied as the words are scattered)."""
    ext = {"k": 1037, "m": m, "n": n}
    tile, din = TILES[din], din.split("/")[0]
    flat = m % 8 != 0 and n % 8 != 0  # (rows of whole 16-byte vectors keep their vectors)
    spec = run_forced(rng, "km", "kn", "mn", ext, tile, din, dout)
    assert spec.a.flat == spec.b.flat == flat
    run_forced(rng, "km", "kn", "mn", ext, tile, din, dout, with_c=True, alpha=-1.5, beta=0.5)
    spec = run_forced(rng, "km", "kn", "nm", ext, tile, din, dout, ops=(ops.relu, None, None, None))
    assert spec.a.flat == spec.b.flat == flat and (spec.op_a or spec.op_b)  # (the planner may trade A and B)


@pytest.mark.parametrize("dtype,shift", [(np.float16, 1), (np.float16, 3), (np.float32, 1), (np.float64, 1)])
def test_misaligned_einsum(rng, monkeypatch, gett_tiles_only, dtype, shift):
    """gettpy.einsum on row-major inputs that start `shift` elements into a buffer (no 16-byte aligned row, nor
    start) with long K (split-K schedules): numpy's values; flat reads launched for the 2-byte inputs."""
    import gettpy
    from gettpy.backends import gpu

    specs = []
    real = gpu.launch
    monkeypatch.setattr(gpu, "launch", lambda spec, *a, **k: (specs.append(spec), real(spec, *a, **k))[1])
    k, m, n = 200003, 101, 51
    ha = rng.uniform(-1, 1, (k, m)).astype(dtype)
    hb = rng.uniform(-1, 1, (k, n)).astype(dtype)

    def shifted(h):
        buf = cp.zeros(h.size + 8, dtype=dtype)
        x = buf[shift:shift + h.size].reshape(h.shape)
        x[...] = cp.asarray(h)
        return x

    got = gettpy.einsum("km,kn->mn", shifted(ha), shifted(hb))
    ref = ha.astype(np.float64).T @ hb.astype(np.float64)
    scale = np.abs(ha.astype(np.float64)).T @ np.abs(hb.astype(np.float64))
    assert_close(cp.asnumpy(got), ref, dtype=dtype, scale=float(scale.max()))
    if dtype == np.float16:
        assert any(s.a.flat and s.b.flat for s in specs), [(s.a, s.b) for s in specs]
