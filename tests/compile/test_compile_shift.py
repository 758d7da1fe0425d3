"""Shifted rows (OperandSpec.shift: a k-major input whose rows start anywhere, read as aligned 16-byte words and
realigned in registers) compiled by NVRTC for sm_90: mma.sync tiles in f16, bf16 and f32 (the f64 tensor cores),
a simt tile in f32, K whole k-tiles or ending in a partial one, an op on each input (applied as the words are
realigned); no spills, and the spec's shared memory agreeing with the kernel's (render's static_assert)."""
from __future__ import annotations

import pytest

from gettpy import ops
from gettpy.kernels.spec import TileConfig
from gettpy.plan import ContractionProblem, make_plan
from gettpy.plan.problem import TensorInfo
from gettpy.plan.tiles import kernel_spec

TILES = [(TileConfig(128, 64, 32, 4, wm=64, wn=32), "f16"), (TileConfig(64, 64, 64, 3, wm=32, wn=32), "bf16"),
         (TileConfig(64, 64, 16, 4, wm=32, wn=32, min_blocks=3), "f32"), (TileConfig(64, 64, 16, 3, tm=4, tn=4), "f32")]


def _plan(dtype: str, k: int, op=None, align: int = 16):
    """Row-major A[m, k], B[n, k] over rows of k values (k odd, or the data `align`-byte aligned: rows not 16-byte
    aligned), D[m, n]."""
    a = TensorInfo("A", ("m", "k"), (k, 1), dtype, align, op=op or ops.identity)
    b = TensorInfo("B", ("n", "k"), (k, 1), dtype, align, op=op or ops.identity)
    d = TensorInfo("D", ("m", "n"), (51, 1), "f32" if dtype == "f32" else dtype)
    return make_plan(ContractionProblem(a, b, None, d, (("k", k), ("m", 61), ("n", 51)), "f32"))


@pytest.mark.parametrize("tile,dtype", TILES, ids=[f"{t.bm}x{t.bn}x{t.bk}{'s' if t.tm else ''}-{d}" for t, d in TILES])
@pytest.mark.parametrize("k,misaligned", [(4097, False), (4096, True)])  # (a partial last k-tile, or none)
def test_shift_compiles(nvrtc, tile, dtype, k, misaligned):
    spec = kernel_spec(_plan(dtype, k, align=(4 if dtype == "f32" else 2) if misaligned else 16), False, tile=tile)
    assert spec.a.shift and spec.b.shift and spec.a.vec == spec.b.vec == 1
    r = nvrtc.build(spec, "sm_90").report
    assert r.spill_stores == 0 and r.stack == 0, r
    assert 0 < r.registers <= 65536 // (tile.threads * tile.min_blocks), r


def test_shift_with_ops_compiles(nvrtc):
    spec = kernel_spec(_plan("f16", 1037, ops.leaky_relu(0.1)), False, tile=TILES[0][0])
    assert spec.a.shift and spec.b.shift and spec.op_a and spec.op_b
    assert nvrtc.build(spec, "sm_90").report.spill_stores == 0
