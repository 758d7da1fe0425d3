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
