"""Realigned rows (OperandSpec.realign): an input read in 2-byte element loads whose smem rows are contiguous runs
(k-major rows of odd pitch, or mn-major rows wider than a tile) is read in aligned 16-byte words and shifted into
its slots. The rule, the kernel's refusals, the lowering, the model's price and the schedule on the CPU, on shapes
of no benchmark; the kernel itself in tests/gpu/test_realign_gpu.py, its arithmetic in test_realign_words.py."""
from __future__ import annotations

import dataclasses
import importlib

import numpy as np
import pytest
from harness import dense_problem

from gettpy.errors import KernelError
from gettpy.kernels.render import render_prelude
from gettpy.kernels.spec import OperandSpec, TileConfig, realign_refusal, smem_bytes
from gettpy.layouts.descriptor import DimMap
from gettpy.plan import make_plan
from gettpy.plan.reads import realign_read, word_read
from gettpy.plan.target import DEFAULT_TARGET
from gettpy.plan.traffic import REALIGN_SHARE, _read_us, realign_load_us

tiles = importlib.import_module("gettpy.plan.tiles")
schedule = importlib.import_module("gettpy.plan.schedule")
MMA = TileConfig(128, 64, 32, 4, wm=64, wn=32)


def _dm(extent, stride, modulus=None):
    return DimMap(extent, (1,), (modulus or extent,), (stride,))


def _op(mn, k, dtype="f16", kmajor=True, vec=1):
    return OperandSpec(dtype, mn, k, DimMap(1, (), (), ()), vec, kmajor, 1)


#: (mn map, k map, k-major, dtype, vec) -> whether the input is read realigned on MMA (128 x 32 k-tiles)
RULE = [
    ((_dm(77, 3001), _dm(3001, 1)), True, "f16", 1, True),  # (k-major rows of 6002 bytes)
    ((_dm(77, 3001), _dm(3001, 1)), True, "bf16", 1, True),
    ((_dm(1155, 1), _dm(29, 1155)), False, "f16", 1, True),  # (mn-major rows wider than the tile)
    ((_dm(77, 3002), _dm(3002, 1)), True, "f16", 2, False),  # (4-byte copies: asynchronous already)
    ((_dm(77, 3001), _dm(3001, 1)), True, "f32", 1, False),  # (4-byte elements)
    ((_dm(77, 3001), _dm(3001, 2)), True, "f16", 1, False),  # (k not stride 1)
    ((_dm(77, 3001), DimMap(3001, (1, 7), (7, 429), (1, 9))), True, "f16", 1, False),  # (k two terms)
    ((DimMap(1155, (1, 55), (55, 21), (1, 60)), _dm(29, 1300)), False, "f16", 1, False),  # (mn two terms)
]


@pytest.mark.parametrize("maps,kmajor,dtype,vec,ok", RULE, ids=[f"rule{i}" for i in range(len(RULE))])
def test_realign_rule(maps, kmajor, dtype, vec, ok):
    op = _op(*maps, dtype=dtype, kmajor=kmajor, vec=vec)
    got = realign_read(op, MMA, 128, 3001)
    assert got.realign is ok and (got is op) is not ok
    if ok:
        assert got.vec == 1 and got.kmajor == kmajor and realign_refusal(got, 128, 32) == ""
        assert word_read(op, MMA, 128, 3001).realign
        for other in (dataclasses.replace(MMA, bm=128, bn=128, bk=64, wm=64, wn=128, wgmma=True),):
            assert realign_read(op, other, 128, 3001) is op  # (swizzled stages: never realigned)
        assert realign_read(op, MMA, 128, 3001, panel=True) is op  # (A's resident panel is loaded once)
        assert realign_read(op, MMA, 128, MMA.bk) is op  # (K within one k-tile: element loads)


def test_lowering_and_prelude():
    """Row-major A[m, k], B[n, k], f16, K odd: both realigned on the heuristic's tile; K even but not a multiple of 8
    keeps its 4-byte copies; the prelude tells the template; the stage counts no raw area for k-major rows."""
    plan = make_plan(dense_problem("mk,nk->mn", {"k": 90001, "m": 77, "n": 53}, "f16", "C"))
    spec = tiles.kernel_spec(plan, False, tile=MMA)
    assert spec.a.realign and spec.b.realign and spec.a.kmajor and spec.b.kmajor
    assert "A_REALIGN = true, B_REALIGN = true" in render_prelude(spec)
    plain = dataclasses.replace(spec, a=dataclasses.replace(spec.a, realign=False),
                                b=dataclasses.replace(spec.b, realign=False))
    header = MMA.stages * 16 * (-(-(128 + 64) * 8 // 16))  # (an 8-byte header a task, a row a task)
    assert smem_bytes(MMA, spec.a, spec.b, True, "f32", "f16") <= smem_bytes(MMA, plain.a, plain.b, True, "f32",
                                                                             "f16") + header
    plan = make_plan(dense_problem("mk,nk->mn", {"k": 90002, "m": 77, "n": 53}, "f16", "C"))
    spec = tiles.kernel_spec(plan, False, tile=MMA)
    assert not spec.a.realign and spec.a.vec == 2


@pytest.mark.parametrize("k,realigned", [(27, False), (33, True)])
def test_one_k_tile_keeps_element_loads(k, realigned):
    """Row-major A[m, k], B[n, k], f16, K odd: K within the tile's one k-tile reads the rows element by element, one
    more k than the k-tile realigns them (on MMA's 32-deep k-tiles, forced)."""
    plan = make_plan(dense_problem("mk,nk->mn", {"k": k, "m": 301, "n": 173}, "f16", "C"))
    spec = tiles.kernel_spec(plan, False, tile=MMA)
    assert spec.a.realign is realigned and spec.b.realign is realigned


REFUSALS = [
    (lambda s: dataclasses.replace(s, tile=dataclasses.replace(s.tile, bm=128, bn=128, bk=64, wm=64, wn=128,
                                                               wgmma=True)), "operand A.*wgmma tile"),
    (lambda s: dataclasses.replace(s, b=dataclasses.replace(s.b, k=_dm(90001, 2))), "operand B.*stride-1"),
    (lambda s: dataclasses.replace(s, a=dataclasses.replace(s.a, vec=2)), "operand A.*vectorised"),
]


@pytest.mark.parametrize("change,match", REFUSALS, ids=["wgmma", "stride", "vec"])
def test_realign_refusals(change, match):
    plan = make_plan(dense_problem("mk,nk->mn", {"k": 90001, "m": 77, "n": 53}, "f16", "C"))
    spec = tiles.kernel_spec(plan, False, tile=MMA)
    with pytest.raises(KernelError, match=match):
        change(spec)


def test_model_prices_realigned_rows_between_element_loads_and_words():
    op = realign_read(_op(_dm(77, 3001), _dm(3001, 1)), MMA, 128, 3001)
    t, nbytes = DEFAULT_TARGET, 77 * 3001 * 2
    got = _read_us(op, 2, nbytes, 128, 32, 2, t)
    assert got == pytest.approx(max(realign_load_us(nbytes, 4, t), t.copy_us(nbytes)))
    assert realign_load_us(nbytes, 4, t) == pytest.approx(t.load_us(nbytes * 5 / 4, 4) / REALIGN_SHARE)
    element = _read_us(dataclasses.replace(op, realign=False), 2, nbytes, 128, 32, 2, t)
    four = _read_us(dataclasses.replace(op, realign=False, vec=2), 2, nbytes, 128, 32, 2, t)
    assert t.copy_us(nbytes) < four < got < element  # (between 4-byte copies and element loads)


@pytest.mark.parametrize("rereads,pads", [(1, False), (2, True)])
def test_re_read_inputs_go_through_padded_packs(rereads, pads):
    """An input read once is read realigned in place; one that two CTA columns re-read costs less from a padded
    pack (one copy, then re-reads at the copy rate): plan/align.py's padded_k_memory with the realigned read's
    price, for two row-major inputs of odd K (in no benchmark)."""
    from gettpy.plan.align import padded_k_memory
    from gettpy.plan.problem import TensorInfo

    t = DEFAULT_TARGET
    ext = dict(m=90, n=100, k=500_001)
    a = TensorInfo("A", ("m", "k"), (500_001, 1), "f16")
    b = TensorInfo("B", ("n", "k"), (500_001, 1), "f16")
    sides = [(x, None, ("k", mn), rereads, lambda nb: realign_load_us(nb, 4, t)) for x, mn in ((a, "m"), (b, "n"))]
    got = padded_k_memory("k", ext, sides, t)
    assert (got is not None) is pads
    if pads:
        assert got["k"] == 500_008


def test_schedule_reads_odd_rows_in_place(rng, gpu_schedules_on_the_cpu):
    """A row-major tall-skinny product with K odd (rows of 2 * 157 bytes): the GPU's schedule reads both inputs in
    place, realigned, with no pack; run by the CPU executor: numpy's float64 values within float16's tolerance."""
    import gettpy

    p = dense_problem("nk,mk->nm", {"k": 157, "m": 200003, "n": 23}, "f16", "C")
    s = schedule.make_schedule(p, 132)
    assert s.pack_a is None and s.pack_b is None
    spec = tiles.kernel_spec(s.core, False, sm_count=132)
    assert spec.a.realign and spec.b.realign
    a = rng.uniform(-1, 1, (23, 157)).astype(np.float16)
    b = rng.uniform(-1, 1, (200003, 157)).astype(np.float16)
    got = gettpy.einsum("nk,mk->nm", a, b)
    ref = a.astype(np.float64) @ b.astype(np.float64).T
    scale = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)).T
    assert got.dtype == np.float16
    assert (np.abs(got.astype(np.float64) - ref) <= 2e-3 * scale + 1e-3).all()


def test_schedule_replans_where_a_split_core_cannot_realign():
    """An MPS-like `abcex,yeacb->xy` (column-major, odd extents, in no benchmark): judged on the unsplit problem, B's
    k modes make one run it could read realigned, so no pack is planned; but the split core's k map (cut along c)
    is two terms, and that core would read B element by element. make_schedule then plans without counting on
    realigned reads: the padded packs of the memory-bound rule, and no core reads a 2-byte input element-wise."""
    p = dense_problem("abcex,yeacb->xy", dict(a=23, b=29, c=37, e=20, x=303, y=219), "f16", "F")
    first = schedule.planned_schedule(p, 132)
    assert schedule._element_reads(first, 132)
    s = schedule.make_schedule(p, 132)
    assert s == schedule.planned_schedule(p, 132, realign=False)
    assert s.pad_ext and not schedule._element_reads(s, 132)
    for core in schedule._cores(s):
        spec = tiles.kernel_spec(core, False, sm_count=132)
        assert all(op.vec * 2 == 16 for op in (spec.a, spec.b))  # (both packs read k-major in 16-byte vectors)
