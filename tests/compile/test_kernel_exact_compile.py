"""NVRTC compiles of the integer kernel (gettpy.backends.gpu_exact) for sm_90, no GPU needed: 1-, 2-, 4- and 8-byte
and bool operands, element-wise gathers (odd extents) and 16-byte vectors, both memory orders, C read, every listed
tile; no register spills or stack. Skipped without cuda-bindings' NVRTC or the CUDA headers."""
from __future__ import annotations

import pytest
from harness import einsum_layouts

from gettpy.kernels import build as B
from gettpy.kernels.spec import TileConfig
from gettpy.plan.simt import EXACT_TILES, exact_kernel_spec


def _spec(sub, ext, dts, order="C", tile=None, c=None):
    return exact_kernel_spec(*einsum_layouts(sub, ext, dts, order, c), tile)


def _check(spec):
    r = B.build(spec, "sm_90").report
    assert r.spill_stores == 0 and r.spill_loads == 0 and r.stack == 0, (spec.tile, r)
    assert 0 < r.registers <= 65536 // spec.tile.threads


DTS = [("i8", "i8", "i8"), ("u8", "u8", "u32"), ("i16", "i16", "i16"), ("i32", "i32", "i32"), ("i64", "i64", "i64"),
       ("u64", "u32", "u64"), ("b1", "b1", "b1"), ("i8", "i32", "i32")]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dts", DTS, ids=["-".join(d) for d in DTS])
def test_types_compile(dts, order):
    for ext in ({"i": 37, "j": 29, "k": 33}, {"i": 64, "j": 128, "k": 96}):  # (gathers, then vectors)
        _check(_spec("ik,kj->ij", ext, dts, order, c=dts[2]))


TILES = [(c, t) for c, ts in EXACT_TILES.items() for t in ts]


@pytest.mark.parametrize("compute,t", TILES, ids=[f"{c}-{t[0]}x{t[1]}" for c, t in TILES])
def test_every_tile_compiles(compute, t):
    dt = "i32" if compute == "u32" else "i64"
    spec = _spec("bik,bkj->bij", {"b": 3, "i": 300, "j": 260, "k": 77}, (dt, dt, dt), "F",
                 TileConfig(*t[:4], tm=t[4], tn=t[5]))
    assert spec.compute == compute
    _check(spec)
