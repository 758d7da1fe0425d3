"""The f64 tensor-core path for f32 inputs (KernelSpec.tf32 = 2), host side: when the heuristic takes it
(compute-bound f32 GEMMs of at least 128 x 128 on an sm_90 target, both inputs readable k-major in 16-byte
vectors), the schedule's k-first packs it needs, the spec's checks, and its kernels compiling without spills.
The GPU results are checked against float64 in tests/test_gpu_dmma.py."""
from __future__ import annotations

import pytest

from gettpy.errors import KernelError
from gettpy.plan.schedule import make_schedule
from gettpy.plan.tiles import DMMA_TILE, choose_tile, kernel_spec
from tccg.runner import case_problem
from tccg.suite import parse_cases


@pytest.mark.parametrize("M,N,K,kw,want", [
    (5184, 5184, 5184, {}, True),
    (5120, 5136, 5136, {"compute": "f64"}, True),  # f32 inputs summed in f64: the same path
    (5184, 5184, 5184, {"wgmma": False}, False),  # not an sm_90 target
    (5184, 5184, 5184, {"dmma": False}, False),  # an input only readable as 4-byte copies
    (5184, 5184, 5184, {"semiring": True}, False),
    (5184, 5184, 5184, {"compute": "tf32"}, False),  # the opt-in TF32 modes keep their tiles
    (5184, 96, 5184, {}, False),  # a side under 128
    (600, 600, 600, {}, False),  # not compute-bound
])
def test_choose_tile_takes_the_f64_cores(M, N, K, kw, want):
    t = choose_tile(M, N, K, dtype="f32", **kw)
    assert (t == DMMA_TILE) == want
    assert choose_tile(M, N, K, dtype="f16", compute="f32") != DMMA_TILE


def test_tccg_f32_plans():
    """Of the 48 in f32 (order F), exactly the compute-bound squares #12 and #20-#30 run on the f64 tensor
    cores: both inputs k-major with 16-byte vectors, an f64 accumulator (the kernel's compute type), packs
    of the inputs that are not k-contiguous made k first; f16 plans never take the path."""
    on = []
    for case in parse_cases("1-48"):
        for dt in ("f32", "f16"):
            s = make_schedule(case_problem(case, dt, dt, "F"))
            spec = kernel_spec(s.core, False)
            if spec.tf32 == 2:
                on.append((case.num, dt))
                assert spec.tile == DMMA_TILE and spec.compute == "f64" and s.core.problem.compute == "f32"
                assert (spec.a.kmajor, spec.b.kmajor, spec.a.vec, spec.b.vec) == (True, True, 4, 4)
                for pk in (s.pack_a, s.pack_b):
                    assert pk is None or pk.modes[0] in s.core.part.k
            else:
                assert spec.compute == ("f64" if dt == "f64" else "f32")
    assert on == [(12, "f32")] + [(n, "f32") for n in range(20, 31)]


def test_spec_checks():
    from dataclasses import replace

    p = case_problem(parse_cases("20")[0], "f32", "f32")
    spec = kernel_spec(make_schedule(p).core, False)
    assert spec.tf32 == 2
    with pytest.raises(KernelError, match="f64"):
        replace(spec, compute="f32")  # the f64 path and only it accumulates in f64
    with pytest.raises(KernelError, match="tf32"):
        replace(spec, tf32=3, compute="f64")


def test_compiles_without_spills():
    """The heuristic kernels of #12 and #20 (f32) for sm_90: mma.m16n8k8.f64 in the SASS-bound PTX, no spills;
    refused for an older target with an error that names the path."""
    pytest.importorskip("cuda.bindings.nvrtc")
    from gettpy.kernels import build as B
    from gettpy.kernels.render import render

    try:
        B.include_dir()
    except Exception:  # noqa: BLE001
        pytest.skip("no CUDA headers (nvidia-cuda-runtime wheel) for NVRTC")
    for num in ("12", "20"):
        spec = kernel_spec(make_schedule(case_problem(parse_cases(num)[0], "f32", "f32")).core, False)
        src, _ = render(spec)
        assert "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64" in src
        r = B.build(spec, "sm_90").report
        assert r.registers > 0 and r.spills == 0, r
        with pytest.raises(KernelError, match="sm_90"):
            B.build(spec, "sm_80")
