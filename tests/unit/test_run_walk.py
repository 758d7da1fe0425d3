"""The epilogue's run walk (OutputSpec.run) on tiles that do not hold a whole number of D's runs: the tile then steps by
the runs it holds (KernelSpec.steps). CPU checks of the rule (plan/reads.py's _store_run), of the refusals
(KernelSpec._check_run), of the grid and shared memory the kernel computes the same way, and, by enumerating every
coordinate through an emulation of the kernel's tile placement and run walk, that the stepped tiles store each value
of D exactly once, at the offset D's layout map gives it. Extents are odd and in no benchmark; the GPU
runs the kernels in tests/gpu/test_gpu.py::test_d_runs."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from harness import tccg_plan

from gettpy.errors import KernelError
from gettpy.kernels.spec import TileConfig
from gettpy.layouts.emulate import gett_offset
from gettpy.plan.reads import RUN_STEP_SHARE
from gettpy.plan.tiles import kernel_spec

# (contraction C-A-B, extents in alphabetical order, dtype, order): D's leading mode is a (F) or f (C)
ODD = [
    ("abcdef-degb-gfac", (27, 15, 3, 21, 3, 5, 19), "f16", "F"),
    ("abcdef-dega-gfbc", (13, 9, 4, 10, 5, 6, 11), "f16", "F"),
    ("abcdef-gfbc-dega", (5, 7, 3, 11, 6, 19, 9), "f16", "C"),
    ("abcdef-degb-gfac", (27, 15, 3, 21, 3, 5, 19), "f32", "F"),
]


def _walk(spec) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's stores of D, emulated as gett_schedule.cuh's tile_coords and gett_tile.cuh's run_table and
    store_runs compute them: (how many times each (m, n) is stored, the offset each store writes minus D's map
    offset of its (m, n), which must be 0)."""
    count = np.zeros((spec.M, spec.N), dtype=np.int64)
    wrong = np.zeros((spec.M, spec.N), dtype=np.int64)
    sm, sn = spec.steps
    t, run, vd = spec.tile, spec.d.run, spec.d.vec
    de, ds = (spec.d.n, spec.d.m) if spec.d.ncontig else (spec.d.m, spec.d.n)
    lim_e, lim_s = (spec.N, spec.M) if spec.d.ncontig else (spec.M, spec.N)
    ec, es = (t.bn, t.bm) if spec.d.ncontig else (t.bm, t.bn)
    runs = (sn if spec.d.ncontig else sm) // run
    for tm in range(math.ceil(spec.M / sm)):
        for tn in range(math.ceil(spec.N / sn)):
            m0, n0 = tm * sm, tn * sn
            e0, s0 = (n0, m0) if spec.d.ncontig else (m0, n0)
            ge = e0 + np.arange(runs) * run
            gs = s0 + np.arange(es)
            toff_e = np.where(ge < lim_e, gett_offset(de, np.minimum(ge, lim_e - 1)), 0)
            toff_s = np.where(gs < lim_s, gett_offset(ds, np.minimum(gs, lim_s - 1)), 0)
            for j in range(runs):
                if ge[j] >= lim_e:
                    continue
                for v in range(0, run, vd):
                    for e in range(vd):  # (the vector's values: consecutive in D)
                        pos = e0 + j * run + v + e
                        ok = gs < lim_s
                        addr = toff_e[j] + toff_s[ok] + v + e
                        want = gett_offset(de, np.full(ok.sum(), pos)) + gett_offset(ds, gs[ok])
                        at = np.full(ok.sum(), pos)
                        mm, nn = (gs[ok], at) if spec.d.ncontig else (at, gs[ok])
                        np.add.at(count, (mm, nn), 1)
                        np.add.at(wrong, (mm, nn), addr - want)
    return count, wrong


@pytest.mark.parametrize("con,ext,dt,order", ODD)
def test_stepped_tiles_store_each_value_once(con, ext, dt, order):
    spec = kernel_spec(tccg_plan(con, ext, dt, order=order), False)
    run = dict(zip(sorted(set(con.replace("-", ""))), ext, strict=True))[con[0] if order == "F" else con[5]]
    assert spec.d.run == run, spec.d
    ec = spec.tile.bn if spec.d.ncontig else spec.tile.bm
    step = spec.steps[1 if spec.d.ncontig else 0]
    assert ec % run and step == ec // run * run >= RUN_STEP_SHARE * ec, (spec.tile, spec.steps)
    # (the store dimension's map starts with the run: stride 1, modulus run, so a step of whole runs starts on one)
    dm = spec.d.n if spec.d.ncontig else spec.d.m
    assert (dm.divisors[0], dm.moduli[0], dm.strides[0]) == (1, run, 1)
    count, wrong = _walk(spec)
    np.testing.assert_array_equal(count, np.ones((spec.M, spec.N), dtype=np.int64))
    assert not wrong.any()
    tiles = math.ceil(spec.M / spec.steps[0]) * math.ceil(spec.N / spec.steps[1])
    assert spec.tiles == tiles and spec.grid == tiles * spec.batch - spec.sk_tiles + spec.sk_ctas


def test_run_starts_are_run_boundaries():
    """Every stepped tile starts where a run of D starts (a multiple of the run, the store dimension's first modulus),
    and the run is contiguous from there."""
    for con, ext, dt, order in ODD:
        spec = kernel_spec(tccg_plan(con, ext, dt, order=order), False)
        dm, step = (spec.d.n, spec.steps[1]) if spec.d.ncontig else (spec.d.m, spec.steps[0])
        firsts = np.arange(0, dm.extent, step)
        assert not (firsts % spec.d.run).any()
        run_end = gett_offset(dm, firsts + spec.d.run - 1) - gett_offset(dm, firsts)
        np.testing.assert_array_equal(run_end, spec.d.run - 1)


def test_table_shared_memory():
    """The run walk's offset tables follow the staging tile: 4 bytes (8 with 64-bit offsets) per run and per
    coordinate of the other dimension, rounded to 16 bytes."""
    spec = kernel_spec(tccg_plan(*ODD[0][:2], "f16", order="F"), False)
    plain = dataclasses.replace(spec, d=dataclasses.replace(spec.d, run=0))
    ec, es = spec.tile.bm, spec.tile.bn
    table = -(-(ec // spec.d.run + es) * (8 if spec.index64 else 4) // 16) * 16
    if spec.tile.persistent:
        assert spec.smem_bytes == plain.smem_bytes + table
    else:
        assert spec.smem_bytes >= plain.smem_bytes


def test_step_refusals():
    """A tile that would step is refused on warpgroup tiles and where the input along the stepped dimension is read
    in vectors that a step would split; a run the tile holds whole needs no step."""
    plan = tccg_plan(*ODD[0][:2], "f16", order="F")
    spec = kernel_spec(plan, False)
    with pytest.raises(KernelError, match="run walk"):
        dataclasses.replace(spec, tile=TileConfig(128, 128, 64, 4, wm=64, wn=128, wgmma=True))
    side = "b" if spec.d.ncontig else "a"
    split = dataclasses.replace(getattr(spec, side), kmajor=False, vec=8, vs=1)
    with pytest.raises(KernelError, match="vectors of 8"):
        dataclasses.replace(spec, **{side: split})
    assert spec.d.run and min(spec.steps) < max(spec.tile.bm, spec.tile.bn)


def test_short_step_keeps_plain_epilogue():
    """A run whose whole multiples would fill under RUN_STEP_SHARE of the tile (24 of a 64-wide simt tile: 48) takes
    no run walk: the tile keeps its step."""
    spec = kernel_spec(tccg_plan("abcdef-degb-gfac", (24, 16, 16, 24, 16, 16, 24), "f32"), False)
    assert spec.tile.bm == 64 and spec.d.run == 0 and spec.steps == (spec.tile.bm, spec.tile.bn)


def test_compute_bound_core_does_not_step():
    """On a compute-bound core the recomputed share of a stepping tile costs its flops: D's odd run (27) then takes
    no run walk, and the tiles keep their steps; the same contraction over a short K (memory-bound) steps."""
    heavy = kernel_spec(tccg_plan("abc-akc-kb", (27, 512, 40, 2048), "f16"), False)
    assert heavy.d.run == 0 and heavy.steps == (heavy.tile.bm, heavy.tile.bn), heavy.tile
    light = kernel_spec(tccg_plan("abc-akc-kb", (27, 512, 40, 24), "f16"), False)
    ec, step = (light.tile.bn, light.steps[1]) if light.d.ncontig else (light.tile.bm, light.steps[0])
    assert light.d.run == 27 and step == ec // 27 * 27 < ec, (light.tile, light.steps)
