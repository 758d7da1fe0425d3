"""Split-K for compute-bound grids whose last wave leaves SMs idle (plan/splitk.py `wave_model_us`,
plan/split.py `wave_split`): the model's rounds by hand, the planner's choice on shapes in no benchmark, and
the split schedules (a zero-filled odd K too) run on the CPU executor against numpy in float64."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from harness import dense_problem

from gettpy.backends import cpu, staged
from gettpy.plan.schedule import make_schedule
from gettpy.plan.split import WAVE_SPLIT_GAIN
from gettpy.plan.splitk import wave_model_us
from gettpy.plan.target import DEFAULT_TARGET
from gettpy.plan.tiles import kernel_spec


def test_wave_model_counts_the_busiest_sm():
    """162 tiles on 132 SMs: the SMs holding two set the time (2 rounds of the whole K); 4 slices make 648
    tile-slices, 5 rounds of a quarter of K, plus the workspace written and summed and a launch."""
    t = DEFAULT_TARGET
    per_sm = 760.0 * 1e6 / t.sm_count  # (flops an SM does per microsecond at the f16 peak)
    one = wave_model_us(162, 100_000, 128, 64, 1, 760.0, 0, t)
    assert one == pytest.approx(2 * 2 * 128 * 64 * 100_000 / per_sm)
    ws = 1089 * 1089 * 4
    four = wave_model_us(162, 100_000, 128, 64, 4, 760.0, ws, t)
    assert four == pytest.approx(5 * 2 * 128 * 64 * 25_000 / per_sm + t.copy_us(2 * 4 * ws) + t.launch_us)
    assert four < 0.7 * one
    assert wave_model_us(132, 100_000, 128, 64, 1, 760.0, 0, t) == pytest.approx(one / 2)  # (a whole wave)


@pytest.mark.parametrize("dtype", ["f16", "f32"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_partial_wave_is_split(dtype, order):
    """A compute-bound GEMM of 1.1-1.2 waves of tiles (1100 x 1030 over K = 20480: in no benchmark) is cut into k
    slices on the plain plan's tile, and the model prices the split at most WAVE_SPLIT_GAIN of the plain grid; a
    grid of whole waves is not split."""
    t = DEFAULT_TARGET
    p = dense_problem("mk,kn->mn", dict(m=1100, n=1030, k=20480), dtype, order)
    s = make_schedule(p)
    assert s.split_mode == "k~split" and s.tail is None
    slices = dict(s.core.problem.extents)["k~split"]
    tile = kernel_spec(s.core, False, sm_count=t.sm_count, wgmma=True).tile
    assert slices >= 2 and s.core.batch == slices
    tiles = math.ceil(1100 / tile.bm) * math.ceil(1030 / tile.bn)
    assert tiles < 4 * t.sm_count and tiles % t.sm_count
    assert math.ceil(tiles * slices / t.sm_count) / slices < math.ceil(tiles / t.sm_count)
    whole = dense_problem("mk,kn->mn", dict(m=1408, n=768, k=20480), dtype, order)  # (132 tiles either way)
    assert make_schedule(whole).split_mode is None


@pytest.mark.parametrize("k", [16384, 16376])
def test_wave_split_runs_on_the_cpu(k):
    """The split schedule on the CPU executor: a target of free launches and copies on 40 SMs makes a 600 x 600
    grid of 50 tiles split."""
    sm = 40
    target = replace(DEFAULT_TARGET, launch_us=0.0, copy_gbs=1e6, sm_count=sm)
    rng = np.random.default_rng(k)
    a = rng.standard_normal((600, k)).astype(np.float16)
    b = rng.standard_normal((k, 600)).astype(np.float16)
    p = dense_problem("mk,kn->mn", dict(m=600, n=600, k=k), "f16", "C")
    s = make_schedule(p, sm_count=sm, target=target)
    assert s.split_mode is not None and s.tail is None
    d = np.full((600, 600), 7, dtype=np.float32)
    staged.run(s, np, cpu.execute, a, b, None, d, 1.0, 0.0)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref, scale = a64 @ b64, np.abs(a64) @ np.abs(b64)
    assert np.all(np.abs(d - ref) <= 1e-3 * scale)
    assert WAVE_SPLIT_GAIN < 1
