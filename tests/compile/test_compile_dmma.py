"""The f32 contractions on the f64 tensor cores (DMMA) compiled by NVRTC for sm_90 (no GPU needed; skipped without
NVRTC or the CUDA headers)."""
from __future__ import annotations

import pytest

from gettpy.errors import KernelError
from gettpy.plan.schedule import make_schedule
from gettpy.plan.tiles import kernel_spec
from tccg.runner import case_problem
from tccg.suite import parse_cases


def test_compiles_without_spills():
    """The heuristic kernels of #12 and #20 (f32) for sm_90: mma.m16n8k8.f64 in the SASS-bound PTX, no spills;
    refused for an older target with an error that names the path."""
    from gettpy.kernels import build as B
    from gettpy.kernels.render import render

    for num in ("12", "20"):
        spec = kernel_spec(make_schedule(case_problem(parse_cases(num)[0], "f32", "f32")).core, False)
        src, _ = render(spec)
        assert "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64" in src
        r = B.build(spec, "sm_90").report
        assert r.registers > 0 and r.spills == 0, r
        with pytest.raises(KernelError, match="sm_90"):
            B.build(spec, "sm_80")


@pytest.mark.parametrize("eq,ext,order", [
    ("ik,kj->ij", {"i": 2048, "j": 2048, "k": 2048}, "C"),
    ("ik,jk->ij", {"i": 1031, "j": 777, "k": 1000}, "F"),
    ("zab,zbc->zac", {"z": 5, "a": 300, "b": 260, "c": 410}, "F"),
])
def test_f64_inputs_compile_without_spills(eq, ext, order):
    """f64 inputs on the f64 tensor cores (fragments read one f64 each): the heuristic's kernels for sm_90, the
    f64 mma in the PTX, no spills, within the registers of the tile's CTAs an SM (min_blocks)."""
    from harness import dense_problem

    from gettpy.kernels import build as B
    from gettpy.kernels.render import render

    spec = kernel_spec(make_schedule(dense_problem(eq, ext, "f64", order)).core, False)
    assert spec.tf32 == 2 and spec.a.dtype == "f64"
    assert "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64" in render(spec)[0]
    r = B.build(spec, "sm_90").report
    assert 0 < r.registers <= 65536 // (spec.tile.threads * spec.tile.min_blocks) and r.spills == 0, r


@pytest.mark.parametrize("eq,ext,order,want", [
    ("mk,nk->mn", {"m": 83, "k": 801, "n": 5000}, "C", (64, 64)),     # (M's input in element reads: no 128 rows)
    ("mk,nk->mn", {"m": 5000, "k": 801, "n": 83}, "C", (64, 64)),
    ("zkm,zkn->zmn", {"z": 5, "k": 333, "m": 1501, "n": 96}, "C", (64, 128)),
    ("ik,kj->ij", {"i": 100, "k": 400, "j": 30000}, "C", (128, 64)),
    ("zkm,zkn->zmn", {"z": 9, "k": 223, "m": 700, "n": 1001}, "C", (64, 64)),
    ("zmk,znk->zmn", {"z": 7, "m": 300, "k": 501, "n": 411}, "F", None),
])
def test_dmma_small_tiles_compile_without_spills(eq, ext, order, want):
    """`passes._dmma_small`'s tiles (f32 on the f64 tensor cores below `dmma_tile`'s shapes) for sm_90: the f64 mma
    in the PTX, no spills under their CTAs' register caps; the tile shape the rule gives (None: whichever DMMA or
    simt tile the shape takes, compiled all the same)."""
    from harness import dense_problem

    from gettpy.kernels import build as B
    from gettpy.kernels.render import render

    spec = kernel_spec(make_schedule(dense_problem(eq, ext, "f32", order)).core, False)
    if want is not None:
        assert spec.tf32 == 2 and (spec.tile.bm, spec.tile.bn) == want, spec.tile
        assert "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64" in render(spec)[0]
    r = B.build(spec, "sm_90").report
    assert r.registers > 0 and r.spills == 0, (spec.tile, r)
