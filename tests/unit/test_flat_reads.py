"""Flat k-tiles (OperandSpec.flat): an mn-major input whose tile holds the whole mn extent and whose k rows lie that
extent apart is read as one contiguous run per k-tile, in aligned 16-byte words, whatever its rows' alignment
(row-major A[k, m] with M = 101 two-byte elements: rows of 202 bytes). The rule, the kernel's refusals, the
lowering and the schedule on the CPU; the kernel itself in tests/gpu/test_flat_gpu.py."""
from __future__ import annotations

import dataclasses
import importlib

import pytest
from harness import dense_problem

from gettpy.errors import KernelError
from gettpy.kernels.render import render_prelude
from gettpy.kernels.spec import OperandSpec, TileConfig, flat_refusal
from gettpy.layouts.descriptor import DimMap
from gettpy.plan import make_plan
from gettpy.plan.reads import flat_read
from gettpy.plan.target import DEFAULT_TARGET
from gettpy.plan.traffic import FLAT_SHARE, _read_us

#: the GETT schedules of long-K shapes, which the long-K kernel would otherwise take
pytestmark = pytest.mark.usefixtures("gett_tiles_only")

tiles = importlib.import_module("gettpy.plan.tiles")
schedule = importlib.import_module("gettpy.plan.schedule")


def _dm(extent, stride, modulus=None):
    return DimMap(extent, (1,), (modulus or extent,), (stride,))


def _op(mn, k, dtype="f16", kmajor=False, vec=1):
    return OperandSpec(dtype, mn, k, DimMap(1, (), (), ()), vec, kmajor, 1)


#: (mn map, k map, tile width, dtype) -> whether the input may be read flat
RULE = [
    ((_dm(101, 1), _dm(4099, 101)), 128, "f16", True),  # (rows of 202 bytes, the tile 128 wide)
    ((_dm(51, 1), _dm(4099, 51)), 64, "i8", True),
    ((_dm(51, 1), _dm(4099, 51)), 64, "f32", False),  # (4-byte copies are asynchronous in place)
    ((_dm(7, 1), _dm(4099, 7)), 32, "f64", False),
    ((_dm(101, 1), _dm(4099, 101)), 64, "f16", False),  # (the tile does not hold the mn extent)
    ((_dm(101, 1), _dm(4099, 104)), 128, "f16", False),  # (rows 104 apart: gaps between them)
    ((_dm(101, 2), _dm(4099, 202)), 128, "f16", False),  # (mn not stride 1)
    ((DimMap(101, (1, 11), (11, 10), (1, 500)), _dm(4099, 101)), 128, "f16", False),  # (mn two terms)
    ((_dm(101, 1), DimMap(4099, (1, 7), (7, 586), (101, 9999))), 128, "f16", False),  # (k two terms)
    ((_dm(7, 1), _dm(4099, 7)), 32, "c128", False),  # (16-byte elements)
]


@pytest.mark.parametrize("maps,tile_mn,dtype,ok", RULE, ids=[f"rule{i}" for i in range(len(RULE))])
def test_flat_rule(maps, tile_mn, dtype, ok):
    op = _op(*maps, dtype=dtype)
    assert (flat_refusal(dataclasses.replace(op, flat=True), tile_mn, 4099) == "") is ok
    tile = TileConfig(tile_mn, 64, 32, 3, tm=8, tn=4)
    got = flat_read(op, tile, tile_mn, 4099)
    assert got.flat is ok and (got is op) is not ok
    wgmma = TileConfig(128, 128, 64, 4, wm=64, wn=128, wgmma=True)  # (swizzled stages: never flat)
    assert flat_read(op, wgmma, tile_mn, 4099) is op
    if ok:
        assert not got.kmajor and got.vec == 1
    # an input already read in 16-byte vectors stays as it is
    wide = _op(*maps, dtype=dtype, vec=16 // 2) if dtype == "f16" else None
    if wide is not None:
        assert flat_read(wide, tile, tile_mn, 4099) is wide


def test_lowering_reads_row_major_long_k_inputs_flat():
    """Row-major A[k, m] and B[k, n] with odd M and N: both inputs flat on the heuristic's tile and on forced mma
    and simt tiles; the prelude tells the template. Aligned rows keep their 16-byte vectors."""
    plan = make_plan(dense_problem("km,kn->mn", {"k": 40001, "m": 61, "n": 51}, "f16", "C"))
    spec = tiles.kernel_spec(plan, False, sm_count=132)
    assert spec.a.flat and spec.b.flat and not spec.tile.wgmma
    assert "A_FLAT = true, B_FLAT = true" in render_prelude(spec)
    for dt, tile in (("f16", TileConfig(128, 64, 32, 4, wm=64, wn=32)), ("f32", TileConfig(128, 64, 16, 3, tm=8, tn=4)),
                     ("f64", TileConfig(128, 64, 8, 3, tm=8, tn=4))):
        plan = make_plan(dense_problem("km,kn->mn", {"k": 4099, "m": 101, "n": 51}, dt, "C"))
        spec = tiles.kernel_spec(plan, False, tile=tile)
        assert spec.a.flat == spec.b.flat == (dt == "f16"), dt  # (4- and 8-byte copies stay as they are)
    plan = make_plan(dense_problem("km,kn->mn", {"k": 40001, "m": 104, "n": 56}, "f16", "C"))
    spec = tiles.kernel_spec(plan, False, sm_count=132)
    assert not spec.a.flat and not spec.b.flat and spec.a.vec == spec.b.vec == 8
    assert "A_FLAT = false, B_FLAT = false" in render_prelude(spec)


@pytest.fixture(scope="module")
def flat_spec():
    plan = make_plan(dense_problem("km,kn->mn", {"k": 4099, "m": 101, "n": 51}, "f16", "C"))
    spec = tiles.kernel_spec(plan, False, tile=TileConfig(128, 64, 32, 4, wm=64, wn=32))
    assert spec.a.flat and spec.b.flat
    return spec


def _tile(spec, **kw):
    return dataclasses.replace(spec, tile=dataclasses.replace(spec.tile, **kw))


REFUSALS = [
    (lambda s: _tile(s, bm=64, wm=32), "operand A.*wider than the tile"),
    (lambda s: dataclasses.replace(s, a=dataclasses.replace(s.a, kmajor=True)), "operand A.*k-major"),
    (lambda s: _tile(s, wm=64, wn=64, bm=128, bn=64, bk=64, wgmma=True), "operand A.*wgmma tile"),
    (lambda s: dataclasses.replace(s, b=dataclasses.replace(s.b, k=_dm(4099, 52))), "operand B.*k rows"),
]


@pytest.mark.parametrize("change,match", REFUSALS, ids=[m.split(".*")[-1][:20] for _, m in REFUSALS])
def test_flat_refusals(flat_spec, change, match):
    with pytest.raises(KernelError, match=match):
        change(flat_spec)


def test_schedule_reads_in_place_what_it_packed():
    """The long-K row-major GEMM with rows of odd length: its gathered B used to be packed (a copy of the whole
    input); read flat, both inputs stay in place and the model prices the core's reads at FLAT_SHARE of the copy
    rate."""
    p = dense_problem("km,kn->mn", {"k": 965510, "m": 101, "n": 51}, "f16", "C")
    s = schedule.make_schedule(p, 132)
    assert s.pack_a is None and s.pack_b is None and s.split_mode is not None
    spec = tiles.kernel_spec(s.core, False, sm_count=132)
    assert spec.a.flat and spec.b.flat
    nbytes = 101 * 965510 * 2
    t = DEFAULT_TARGET
    assert _read_us(spec.a, 2, nbytes, spec.tile.bm, spec.tile.bk, 4, t) == pytest.approx(
        max(t.load_us(nbytes, 16), t.copy_us(nbytes)) / FLAT_SHARE)
    gathered = dataclasses.replace(spec.a, flat=False)
    assert _read_us(gathered, 2, nbytes, spec.tile.bm, spec.tile.bk, 4, t) > 2 * t.copy_us(nbytes)


@pytest.mark.parametrize("k,m,n", [(965510, 101, 51), (200003, 37, 29)])
def test_unpacked_schedule_end_to_end(rng, gpu_schedules_on_the_cpu, k, m, n):
    """The GPU's schedule of the long-K row-major GEMM (split-K with a tail, no packs now) run by the CPU executor on
    numpy float16 arrays: numpy's float64 values within float16's tolerance."""
    import numpy as np

    import gettpy

    a = rng.uniform(-1, 1, (k, m)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    got = gettpy.einsum("km,kn->mn", a, b)
    ref = a.astype(np.float64).T @ b.astype(np.float64)
    scale = np.abs(a.astype(np.float64)).T @ np.abs(b.astype(np.float64))
    assert got.dtype == np.float16
    assert (np.abs(got.astype(np.float64) - ref) <= 2e-3 * scale + 1e-3).all()
