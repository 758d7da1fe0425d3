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
