"""The long-K step-time probe (tccg/probes/longk.py) on the CPU: its shape and read syntax, refusals that name the
item at fault, and the message without a CUDA device; and the launches it forces (plan/longk.candidate_layout)
cover K in whole steps of the input type."""
from __future__ import annotations

import math

import pytest

from gettpy.kernels.longk import kt
from gettpy.plan.longk import CANDIDATES, candidate_layout
from gettpy.plan.target import DEFAULT_TARGET
from tccg.probes.longk import DEFAULT_SHAPES, main, parse_reads, parse_shapes


def test_parse_shapes_and_reads():
    assert parse_shapes("17x3x3000017, 61X17X1234567") == [(17, 3, 3000017), (61, 17, 1234567)]
    assert parse_reads("kk,mK, km,mm") == [(True, True), (False, True), (True, False), (False, False)]
    assert len(parse_shapes(DEFAULT_SHAPES)) == 5


@pytest.mark.parametrize("text", ["17x3", "17x3x0", "axbxc", "17x3x5x1"])
def test_bad_shapes_are_named(text):
    with pytest.raises(ValueError, match=repr(text.split(",")[0])):
        parse_shapes(text)


@pytest.mark.parametrize("text", ["k", "kx", "kkk"])
def test_bad_reads_are_named(text):
    with pytest.raises(ValueError, match=repr(text)):
        parse_reads(text)


def test_without_a_device_it_says_so(capsys, monkeypatch):
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() > 0:
            pytest.skip("a CUDA device is present")
    except Exception:  # noqa: BLE001
        pass
    assert main(["--shapes", "17x3x3000017"]) == 1
    assert "needs a CUDA device" in capsys.readouterr().out


@pytest.mark.parametrize("dtype", ["f16", "f32"])
@pytest.mark.parametrize("M,N,K", parse_shapes(DEFAULT_SHAPES))
def test_forced_launches_cover_k_in_whole_steps(dtype, M, N, K):
    for c in (c for c in CANDIDATES if c.itemsize == (2 if dtype == "f16" else 4)):
        lay = candidate_layout(dtype, M, N, K, (True, K), (True, K), c.tile, DEFAULT_TARGET)
        if lay is None:  # (more tiles than MAX_TILES)
            assert math.ceil(M / c.tile.bm) * math.ceil(N / c.tile.bn) > 4
            continue
        assert lay.slice % kt(dtype) == 0 and lay.slices * lay.slice >= K > (lay.slices - 1) * lay.slice
