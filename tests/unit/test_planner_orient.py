"""The orientation of a TMA-fed core (gettpy/plan/orient.py): traded where the other orientation's tiles take
fewer or cheaper waves, kept where the chunked epilogue pays more, and the traded schedule computing the same
numbers on the CPU executor."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from gettpy.backends import cpu, staged
from gettpy.plan.orient import CHUNKED_GAIN, tma_core_cost
from gettpy.plan.problem import ContractionProblem, TensorInfo
from gettpy.plan.schedule import make_schedule
from gettpy.plan.target import H100_SXM
from gettpy.plan.tiles import kernel_spec


def _gemm(M, N, K, dout="f16") -> ContractionProblem:
    """D[i, j] = A[i, k] B[k, j], every tensor row-major (D's stride-1 mode j: the partition puts it on N)."""
    return ContractionProblem(TensorInfo("A", ("i", "k"), (K, 1), "f16"), TensorInfo("B", ("k", "j"), (N, 1), "f16"),
                              None, TensorInfo("D", ("i", "j"), (N, 1), dout), (("i", M), ("j", N), ("k", K)))


def _cost(M, N, bm, bn, cluster, sm):
    """Waves of bm x bn tiles (rows in whole clusters) times a tile's work and loads, written out."""
    rows = math.ceil(math.ceil(M / bm) / cluster) * cluster
    waves = math.ceil(rows * math.ceil(N / bn) / sm)
    return waves * (bm * bn + 64 * (bm + bn))


def test_traded_where_the_other_orientation_takes_fewer_waves():
    # 5144 x 5104: as partitioned (M = 5144) the TMA tile is 128 x 240 in 41 rows, no cluster: 902 tiles, 7 waves;
    # traded (M = 5104) 256 x 160 in 20 rows, clusters of two: 660 tiles, 5 waves
    s = make_schedule(_gemm(5144, 5104, 4096))
    spec = kernel_spec(s.core, False)
    assert s.core.part.swapped and (s.core.M, s.core.N) == (5104, 5144)
    assert (spec.tile.bm, spec.tile.bn, spec.tile.cluster, spec.tile.tma) == (256, 160, 2, True)
    assert tma_core_cost(spec, 132) == _cost(5104, 5144, 256, 160, 2, 132) < _cost(5144, 5104, 128, 240, 1, 132)
    assert _cost(5104, 5144, 256, 160, 2, 132) == 5 * (256 * 160 + 64 * 416)
    assert not s.staged  # (nothing packed for it)


def test_kept_where_the_chunked_epilogue_pays_more():
    # 4232 x 5624, f16 D along N: 256 x 160 in 17 rows (no cluster), chunked epilogue; traded, 128 x 240 tiles in
    # 44 rows would cost less by the wave model alone, but not once the chunked epilogue's share is counted
    s = make_schedule(_gemm(4232, 5624, 4096))
    spec = kernel_spec(s.core, False)
    assert not s.core.part.swapped
    assert (spec.tile.bm, spec.tile.bn, spec.tile.chunked) == (256, 160, True)
    here, there = _cost(4232, 5624, 256, 160, 1, 132), _cost(5624, 4232, 128, 240, 2, 132)
    assert there < here and CHUNKED_GAIN * here < there
    assert tma_core_cost(spec, 132) == pytest.approx(CHUNKED_GAIN * here)


def test_the_tuners_candidates_are_not_traded():
    from gettpy.plan.partition import partition

    p = _gemm(5144, 5104, 4096)
    s = make_schedule(p, part=partition(p))
    assert not s.core.part.swapped and s.core.M == 5144


@pytest.mark.parametrize("dout", ["f16", "f32"])
def test_traded_schedule_computes_the_contraction(dout):
    """On a 4-SM target a GEMM of ~1200 is traded the same way; the traded schedule, run by the CPU executor, is
    checked against numpy float64."""
    small = replace(H100_SXM, sm_count=4)
    M, N, K = 1160, 1288, 1024
    p = _gemm(M, N, K, dout)
    s = make_schedule(p, target=small)
    assert s.core.part.swapped and (s.core.M, s.core.N) == (N, M)
    assert kernel_spec(s.core, False, sm_count=4).tile.tma
    rng = np.random.default_rng(5)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    d = np.full((M, N), 7, dtype=np.dtype(np.float16 if dout == "f16" else np.float32))
    staged.run(s, np, cpu.execute, a, b, None, d, 1.0, 0.0)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    tol = 2e-3 if dout == "f16" else 1e-5
    assert np.max(np.abs(d - ref)) <= tol * np.max(np.abs(ref))
