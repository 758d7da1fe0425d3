"""The explicit Target (gettpy/plan/target.py): the default H100 SXM figures, the model helpers, the
device-less fallback, and that the planner's models read the target they are given."""
from __future__ import annotations

from dataclasses import replace

import pytest

from gettpy.plan.plan import make_plan
from gettpy.plan.problem import ContractionProblem, TensorInfo
from gettpy.plan.target import DEFAULT_TARGET, H100_SXM, Target, device_target
from gettpy.plan.tuner import predicted_ms


def _gemm(M, N, K, dtype="f16") -> ContractionProblem:
    return ContractionProblem(TensorInfo("A", ("i", "k"), (K, 1), dtype), TensorInfo("B", ("k", "j"), (N, 1), dtype),
                              None, TensorInfo("D", ("i", "j"), (N, 1), dtype),
                              (("i", M), ("j", N), ("k", K)))


def test_default_is_the_h100():
    assert DEFAULT_TARGET is H100_SXM
    assert H100_SXM.sm_count == 132 and H100_SXM.cc == (9, 0)
    assert H100_SXM.wgmma and H100_SXM.tma and H100_SXM.clusters and H100_SXM.dmma
    assert H100_SXM.peak("mma") > H100_SXM.peak("dmma") > H100_SXM.peak("simt32") > H100_SXM.peak("simt64") > 0
    assert H100_SXM.peak("no such kind") == 0.0
    assert H100_SXM.copy_us(2.9e6) == pytest.approx(1.0)  # (2.9 TB/s: 2.9 MB a microsecond)


def test_invalid_target_is_refused():
    with pytest.raises(ValueError, match="sm_count"):
        replace(H100_SXM, sm_count=0)


def test_device_target_without_a_device_is_the_default():
    """On a machine without a CUDA device (CI), plans are made for the default target."""
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() > 0:
            pytest.skip("a CUDA device is present")
    except Exception:  # noqa: BLE001 - no CuPy runtime: the default either way
        pass
    assert device_target() is DEFAULT_TARGET


@pytest.mark.parametrize("M,N,K", [(5135, 5119, 5135), (300, 90_001, 77), (62, 55, 100_003)])
def test_tuner_model_reads_the_target(M, N, K):
    """Half the bandwidth and half the peak: the tuner's predicted time doubles (its waves read the SM count)."""
    plan = make_plan(_gemm(M, N, K))
    from gettpy.kernels.spec import TileConfig

    tile = TileConfig(128, 128, 32, 4, wm=64, wn=32)
    slow = Target("half", (9, 0), 132, H100_SXM.smem_per_sm, H100_SXM.smem_per_block, H100_SXM.copy_gbs / 2,
                  tuple((k, v / 2) for k, v in H100_SXM.peaks), True, True, True, True)
    assert predicted_ms(plan, tile, slow) == pytest.approx(2 * predicted_ms(plan, tile, H100_SXM))
