"""The realigning padded row copy (gettpy.kernels.realign) compiled by NVRTC for sm_90 with no spills, on the
views the padded memory-bound schedules pack (no GPU needed; skipped without NVRTC or the CUDA headers); and the
split core the planner picks over such packs."""
from __future__ import annotations

import pytest

from gettpy.kernels import build
from gettpy.kernels.realign import plan_realign, realign_source
from gettpy.plan.problem import ContractionProblem, TensorInfo
from gettpy.plan.schedule import make_schedule


@pytest.mark.parametrize("itemsize,shape,strides,kp", [
    (2, (94, 3_406_031), (3_406_031, 1), 3_406_032),    # an odd row: every row after the first misaligned
    (2, (5, 7, 1001), (2 * 7 * 1001, 1001, 1), 1008),  # (every other 7 x 1001 block)
    (4, (33, 40_003), (-40_003, 1), 40_004),            # (negative row stride)
    (1, (9, 77), (80, 1), 80),
    (8, (9, 77), (77, 1), 78),
])
def test_realign_compiles_for_sm90(itemsize, shape, strides, kp):
    p = plan_realign(shape, strides, itemsize, kp)
    assert p is not None
    cubin, log = build.compile_source(realign_source(p), "gett_realign", "sm_90")
    assert cubin and "gett_realign" in log and "0 bytes spill" in log


def _problem(eq: str, ext: dict[str, int], dtype: str) -> ContractionProblem:
    lhs, out = eq.split("->")

    def info(name, modes):
        st, acc = {}, 1
        for m in modes[::-1]:
            st[m] = acc
            acc *= ext[m]
        return TensorInfo(name, tuple(modes), tuple(st[m] for m in modes), dtype)

    a, b = lhs.split(",")
    return ContractionProblem(info("A", a), info("B", b), None, info("D", out), tuple(sorted(ext.items())))


def test_padded_split_core_compiles_for_sm90(gett_tiles_only):
    """The split core over zero-filled packs (odd k rows of 4-byte elements, C order) compiles with no spills."""
    from gettpy.plan.tiles import kernel_spec

    s = make_schedule(_problem("mk,nk->mn", dict(m=90, n=110, k=1_200_007), "f32"))
    assert s.pad_ext and s.split_mode is not None
    spec = kernel_spec(s.core, False)
    assert spec.a.vec * 4 == 16 and spec.b.vec * 4 == 16
    from gettpy.kernels.render import render

    src, name = render(spec)
    cubin, log = build.compile_source(src, name, "sm_90a" if spec.tile.wgmma else "sm_90")
    assert cubin and "0 bytes spill" in log


@pytest.mark.parametrize("eq,ext", [("mk,nk->mn", dict(m=88, n=37, k=1_200_007)),
                                    ("km,kn->mn", dict(m=1155, n=219, k=45)),
                                    ("nk,mk->nm", dict(m=200_003, n=23, k=157))])
def test_realigned_cores_compile_for_sm90(eq, ext):
    """The cores that read odd 2-byte rows realigned in place (k-major rows; mn-major rows wider than a tile)
    compile with no spills, split cores and their tails included."""
    from gettpy.kernels.render import render
    from gettpy.plan.tiles import kernel_spec

    s = make_schedule(_problem(eq, ext, "f16"))
    cores = [s.core] + ([s.tail.core] if s.tail is not None else [])
    specs = [kernel_spec(c, False) for c in cores]
    assert any(sp.a.realign or sp.b.realign for sp in specs)
    for spec in specs:
        src, name = render(spec)
        cubin, log = build.compile_source(src, name, "sm_90a" if spec.tile.wgmma else "sm_90")
        assert cubin and "0 bytes spill" in log
