"""GPU test of the long narrow GEMM rule (plan/partition.py `narrow_kmajor_wide`, plan/tiles.py `_narrow_ws`):
TCCG #2's shape family runs with its k-major wide input on the kernel's M, on the persistent warp-specialised
wgmma tile fed by cp.async loaders (sm_90; forced here: where the wide input's rows are whole, as in these shapes,
the heuristic takes the row-stream tile of plan/tiles.py `_row_stream`, tests/gpu/test_gpu_rows.py), and the result
matches numpy float64 at every element: f16, bf16 and f16 -> f32, a partial last tile row, a partial last k-tile,
and #2 at its full size."""
from __future__ import annotations

import pytest
from harness import check_tccg2, tccg2_family

pytestmark = pytest.mark.gpu

CASES = [  # (id, extents a, b, c, d of abc-dca-bd, input dtype, output dtype)
    ("edge_f16", (132, 24, 256, 256), "f16", "f16"),
    ("ragged_m_and_k_f16", (133, 24, 256, 264), "f16", "f16"),
    ("f16_to_f32", (133, 24, 256, 264), "f16", "f32"),
    ("bf16", (140, 32, 250, 320), "bf16", "bf16"),
    ("tccg2_f16", (312, 24, 296, 312), "f16", "f16"),
]


def _ws_tile():
    from gettpy.kernels.spec import TileConfig

    return TileConfig(256, 32, 64, 4, wm=64, wn=32, wgmma=True, ws=True, persistent=True, l2_prefetch=128)


WS_TILE = _ws_tile()  # (the tile `_narrow_ws` gives)


@pytest.mark.parametrize("name,ext,din,dout", CASES, ids=[c[0] for c in CASES])
def test_narrow_kmajor_wide_on_the_ws_tile(name, ext, din, dout):
    import cupy as cp

    from gettpy.backends.gpu import _target, launch
    from gettpy.plan import make_plan
    from gettpy.plan.tiles import kernel_spec

    a, b, d, ha, hb, p = tccg2_family(ext, din, dout)
    # the plan: the wide input (A, rows of d) on the kernel's M, and on sm_90 the warp-specialised tile
    plan = make_plan(p)
    assert plan.part.m == ("a", "c") and not plan.part.swapped
    if not _target()[1]:
        pytest.skip("the warp-specialised wgmma tile runs on sm_90")
    spec = kernel_spec(plan, False, tile=WS_TILE)
    ptr = (lambda x: x.data_ptr()) if din == "bf16" else (lambda x: x.data.ptr)
    launch(spec, ptr(a), ptr(b), 0, ptr(d), 1.0, 0.0)
    cp.cuda.Device().synchronize()
    check_tccg2(d, ha, hb, din, dout)
