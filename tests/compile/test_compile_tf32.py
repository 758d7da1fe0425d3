"""TF32 and 3xTF32 kernel specialisations compiled by NVRTC for sm_90 (no GPU needed; skipped without NVRTC or
the CUDA headers)."""
from __future__ import annotations

import pytest


@pytest.mark.parametrize("mode,expect", [("tf32", 1), ("3xtf32", 3)])
def test_tf32_kernel_spec_compiles(mode, expect):
    from gettpy.kernels.build import build
    from gettpy.plan import ContractionProblem, make_plan
    from gettpy.plan.problem import TensorInfo
    from gettpy.plan.tiles import kernel_spec

    # A k-contiguous (16-byte copies, k-major fragments), then m-contiguous (rows of 130: 8-byte copies along m,
    # the fragments loaded from the m-major tile one value at a time); B m-contiguous, then k-contiguous
    for a_strides, b_strides, want in (((300, 1), (1, 300), (True, 4, True, 4)),
                                       ((1, 130), (70, 1), (False, 2, False, 2))):
        p = ContractionProblem(TensorInfo("A", ("i", "k"), a_strides, "f32"),
                               TensorInfo("B", ("k", "j"), b_strides, "f32"), None,
                               TensorInfo("D", ("i", "j"), (70, 1), "f32"),
                               (("i", 130), ("j", 70), ("k", 300)), compute=mode)
        spec = kernel_spec(make_plan(p), False)
        assert spec.tf32 == expect and spec.tile.mma
        assert (spec.a.kmajor, spec.a.vec, spec.b.kmajor, spec.b.vec) == want
        assert spec.compute == "f32"
        build(spec, "sm_90")
