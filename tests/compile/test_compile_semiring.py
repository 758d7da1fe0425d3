"""A semiring specialisation: a simt tile, the semiring in the rendered source, compiled by NVRTC for sm_90 (no
GPU needed; skipped without NVRTC or the CUDA headers)."""
from __future__ import annotations

import pytest

from gettpy import ops
from gettpy.errors import KernelError


def test_semiring_kernel_spec_and_compile():
    """The GPU specialisation: a simt tile (never tensor cores), the semiring in the rendered source, and
    NVRTC compiles it for sm_90 (f16 and f32 inputs, partial k-tiles)."""
    from gettpy.kernels.build import build
    from gettpy.kernels.render import render
    from gettpy.kernels.spec import TileConfig
    from gettpy.plan import ContractionProblem, make_plan
    from gettpy.plan.problem import TensorInfo
    from gettpy.plan.tiles import kernel_spec

    for dt in ("f16", "f32"):
        p = ContractionProblem(TensorInfo("A", ("i", "k"), (37, 1), dt), TensorInfo("B", ("k", "j"), (29, 1), dt),
                               None, TensorInfo("D", ("i", "j"), (29, 1), dt),
                               (("i", 130), ("j", 29), ("k", 37)), semiring=ops.max_plus)
        spec = kernel_spec(make_plan(p), False)
        assert not spec.tile.mma and spec.semiring and spec.K % spec.tile.bk
        src, _ = render(spec)
        assert "kStandard = false" in src and "0x7ff0000000000000" in src
        build(spec, "sm_90")
        if dt == "f16":  # an mma tile is refused for a semiring
            with pytest.raises(KernelError, match="semiring max_plus"):
                kernel_spec(make_plan(p), False, tile=TileConfig(128, 128, 32, 3, wm=64, wn=64))
