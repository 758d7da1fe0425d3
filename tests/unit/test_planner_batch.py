"""Batch modes leading the output (gettpy/plan/batch.py): the planner stages such an output through a workspace
led by the tile's own modes and copies it into D, where D is too large for the L2 cache to merge its scattered
stores. Shapes in no benchmark (odd sequence lengths, head sizes of 72 and 88, batch counts of 6 and 21), both
memory orders, as data tables of the chosen plans, and run end to end on the CPU executor against numpy in
float64."""
from __future__ import annotations

import numpy as np
import pytest
from harness import packed_strides

from gettpy.backends import execute
from gettpy.backends.staged import merge_axes
from gettpy.plan.batch import L2_BYTES, batch_led, batch_run, sector_share, stage_batch_led, workspace_order
from gettpy.plan.plan import make_plan
from gettpy.plan.problem import ContractionProblem, TensorInfo
from gettpy.plan.schedule import make_schedule

TOL = {"f16": 2e-3, "f32": 2e-5, "f64": 1e-12}
NP = {"f16": np.float16, "f32": np.float32, "f64": np.float64}


def _strides(modes: str, ext: dict[str, int], order: str) -> tuple[int, ...]:
    return packed_strides([ext[m] for m in modes], order)


def _problem(eq: str, ext: dict[str, int], dtype: str, order: str, with_c: bool = False) -> ContractionProblem:
    """The problem of `eq` on dense tensors in `order` (C: last mode fastest, F: first)."""
    lhs, out = eq.split("->")
    a, b = lhs.split(",")
    info = lambda name, modes: TensorInfo(name, tuple(modes), _strides(modes, ext, order), dtype)  # noqa: E731
    c = info("C", out) if with_c else None
    return ContractionProblem(info("A", a), info("B", b), c, info("D", out), tuple(sorted(ext.items())))


# (einsum, extents, dtype, order, the workspace's modes fastest first or None: D stored in place, the modes of
# the packs of A and B fastest first or None: read in place)
PLAN_TABLE = [
    # scores of column-major heads: D's stride-1 modes are the batch modes z, h (2 x 12 x 1537^2 f16: 113 MB);
    # the inputs are batch-led too (re-read by many CTAs: packed k-major)
    ("zhqd,zhkd->zhqk", {"z": 2, "h": 12, "q": 1537, "k": 1537, "d": 72}, "f16", "F",
     ("q", "k", "z", "h"), ("d", "q", "z", "h"), ("d", "k", "z", "h")),
    # the same in row-major order: k is D's stride-1 mode, d the inputs': all in place
    ("zhqd,zhkd->zhqk", {"z": 2, "h": 12, "q": 1537, "k": 1537, "d": 72}, "f16", "C", None, None, None),
    # P V, column-major: D = zhqd has z, h fastest; P (A) is read by one CTA column (d = 88 <= one tile), so
    # only its batch-led layout makes it packed -- k-major, its odd k zero-filled to whole vectors (plan/align.py)
    ("zhqk,zhkd->zhqd", {"z": 6, "h": 16, "q": 1203, "k": 1203, "d": 88}, "f16", "F",
     ("q", "d", "z", "h"), ("k", "q", "z", "h"), ("k", "d", "z", "h")),
    ("zhqk,zhkd->zhqd", {"z": 6, "h": 10, "q": 1203, "k": 1203, "d": 88}, "f32", "F",
     ("q", "d", "z", "h"), ("q", "k", "z", "h"), ("d", "k", "z", "h")),
    # sequence-major heads, column-major (z fastest, then q: the batch run is one mode)
    ("zqhd,zkhd->zhqk", {"z": 3, "h": 14, "q": 1111, "k": 1111, "d": 72}, "f16", "F",
     ("q", "k", "z", "h"), ("d", "q", "z", "h"), ("d", "k", "z", "h")),
    # a batched GEMM with the batch mode last in row-major order (b fastest everywhere), f64 (four to a sector)
    ("mkb,knb->mnb", {"b": 21, "m": 613, "n": 577, "k": 301}, "f64", "C",
     ("n", "m", "b"), ("m", "k", "b"), ("n", "k", "b")),
    # a batch-led D that fits in the L2 share (21 x 133 x 129 f16: 0.7 MB): in place; the batch-led inputs packed
    # k-major, their odd k zero-filled to whole vectors
    ("mkb,knb->mnb", {"b": 21, "m": 133, "n": 129, "k": 301}, "f16", "C", None, ("k", "m", "b"), ("k", "n", "b")),
    # a batch mode of extent 1 in front does not count: m leads D among the live modes
    ("bmk,bkn->bmn", {"b": 1, "m": 3001, "n": 2999, "k": 64}, "f16", "F", None, ("k", "m", "b"), None),
]


def _modes(t):
    return None if t is None else t.modes


@pytest.mark.parametrize("eq,ext,dtype,order,want,want_a,want_b", PLAN_TABLE)
def test_chosen_plan(eq, ext, dtype, order, want, want_a, want_b):
    s = make_schedule(_problem(eq, ext, dtype, order))
    assert (_modes(s.stage_d), _modes(s.pack_a), _modes(s.pack_b)) == (want, want_a, want_b)
    if want is not None:
        assert s.split_mode is None and s.tail is None
        # the core writes the workspace: dense, its first mode stride 1, the tile's store direction
        w = s.stage_d
        acc = 1
        for m, st in zip(w.modes, w.strides, strict=True):
            assert st == acc
            acc *= ext[m]
        assert s.core.problem.d == w
        assert w.modes[0] in s.core.part.m + s.core.part.n


# (tensor modes, order, extents of z, h, dtype) -> batch run, sector share
RUN_TABLE_SHARE = [
    ("zhqk", "F", (5, 3), "f16", 15, 15),
    ("zhqk", "F", (5, 7), "f16", 35, 16),
    ("zhqk", "F", (5, 7), "f64", 35, 4),
    ("zhqk", "C", (5, 7), "f16", 1, 1),
    ("qzhk", "F", (5, 7), "f16", 1, 1),     # q (not a batch mode) is stride 1
    ("zqhk", "F", (2, 7), "f16", 2, 2),     # z then q: the run stops at q
    ("hzqk", "F", (1, 9), "f32", 9, 8),     # z of extent 1 skipped
]


@pytest.mark.parametrize("modes,order,zh,dtype,run,share", RUN_TABLE_SHARE)
def test_batch_run_and_share(modes, order, zh, dtype, run, share):
    ext = {"z": zh[0], "h": zh[1], "q": 37, "k": 41}
    t = TensorInfo("T", tuple(modes), _strides(modes, ext, order), dtype)
    assert batch_run(t, ("z", "h"), ext) == run
    assert sector_share(t, ("z", "h"), ext) == share


def test_with_c_stays_in_place():
    p = _problem("zhqd,zhkd->zhqk", {"z": 2, "h": 12, "q": 1537, "k": 1537, "d": 72}, "f16", "F", with_c=True)
    assert make_schedule(p).stage_d is None


def test_wide_elements_stay_in_place():
    # 16-byte elements: two to a sector, fewer than the copy's three passes over D
    p = _problem("zhqd,zhkd->zhqk", {"z": 2, "h": 12, "q": 1537, "k": 1537, "d": 72}, "f16", "F")
    plan = make_plan(p)
    assert batch_led(plan)
    wide = ContractionProblem(p.a, p.b, None, TensorInfo("D", p.d.modes, p.d.strides, "c128"), p.extents, "c128")
    assert stage_batch_led(make_plan(p), wide, dict(p.extents)) is None


# (D's modes and strides, partition's batch modes) -> batch-led
LED_TABLE = [
    ("zhqk", "F", True),
    ("zhqk", "C", False),
    ("qzhk", "F", False),   # q (an m mode) is stride 1
]


@pytest.mark.parametrize("dmodes,order,want", LED_TABLE)
def test_batch_led(dmodes, order, want):
    ext = {"z": 5, "h": 3, "q": 37, "k": 41, "d": 9}
    a = TensorInfo("A", tuple("zhqd"), _strides("zhqd", ext, order), "f16")
    b = TensorInfo("B", tuple("zhkd"), _strides("zhkd", ext, order), "f16")
    d = TensorInfo("D", tuple(dmodes), _strides(dmodes, ext, order), "f16")
    plan = make_plan(ContractionProblem(a, b, None, d, tuple(sorted(ext.items()))))
    assert set(plan.part.b) == {"z", "h"}
    assert batch_led(plan) is want


def test_workspace_order_keeps_batch_order():
    ext = {"z": 5, "h": 3, "q": 37, "k": 41, "d": 9}
    p = _problem("zhqd,zhkd->hzqk", ext, "f16", "F")  # D: h fastest, then z
    order = workspace_order(make_plan(p))
    assert order[-2:] == ("h", "z")
    assert set(order[:2]) == {"q", "k"}


# (shape slowest first, source strides, destination strides, merged extents)
MERGE_TABLE = [
    ((1537, 1537, 12, 2), (1, 1537, 1537**2 * 2, 1537**2), (1537 * 24, 24, 2, 1), (1537, 1537, 24)),
    ((4, 5, 6), (30, 6, 1), (30, 6, 1), (120,)),
    ((4, 5, 6), (1, 4, 20), (30, 6, 1), (4, 5, 6)),
    ((4, 1, 5, 6), (1, 99, 4, 20), (30, 30, 6, 1), (4, 5, 6)),
    ((7, 3, 2), (6, 1, 3), (6, 2, 1), (7, 3, 2)),
]


@pytest.mark.parametrize("shape,src,dst,want", MERGE_TABLE)
def test_merge_axes(shape, src, dst, want):
    assert merge_axes(shape, src, dst) == want
    # the merged copy moves the same elements: enumerate both views
    n = int(np.prod(shape))
    base = np.arange(max(n, 1 + sum((e - 1) * s for e, s in zip(shape, src, strict=True))))
    full = np.lib.stride_tricks.as_strided(base, shape, [s * base.itemsize for s in src])
    flat_src = full.reshape(-1)
    merged = merge_axes(shape, src, dst)
    assert int(np.prod(merged)) == n
    assert np.array_equal(np.sort(flat_src), np.sort(full.reshape(merged).reshape(-1)))


# (einsum, extents, dtype, order): staged on the CPU executor (the L2 share made small so that small shapes stage)
STAGED_RUNS = [
    ("zhqd,zhkd->zhqk", {"z": 3, "h": 5, "q": 37, "k": 29, "d": 9}, "f16", "F"),
    ("zhqk,zhkd->zhqd", {"z": 2, "h": 7, "q": 31, "k": 23, "d": 11}, "f32", "F"),
    ("zqhd,zkhd->zhqk", {"z": 4, "h": 3, "q": 19, "k": 41, "d": 13}, "f16", "F"),
    ("mkb,knb->mnb", {"b": 7, "m": 33, "n": 27, "k": 45}, "f64", "C"),
]


@pytest.mark.parametrize("eq,ext,dtype,order", STAGED_RUNS)
def test_staged_run_matches_float64(eq, ext, dtype, order):
    from dataclasses import replace

    from gettpy.plan.target import DEFAULT_TARGET

    p = _problem(eq, ext, dtype, order)
    s = make_schedule(p, target=replace(DEFAULT_TARGET, l2_bytes=0), direct=False)  # (the staging, not direct)
    assert s.stage_d is not None and s.stage_d.modes[0] in s.core.part.m + s.core.part.n
    assert s.pack_a is not None or s.pack_b is not None  # (the inputs are batch-led too)
    rng = np.random.default_rng(7)
    lhs, out = eq.split("->")
    ma, mb = lhs.split(",")
    npo = "C" if order == "C" else "F"
    a = np.asarray(rng.standard_normal([ext[m] for m in ma]), dtype=NP[dtype], order=npo)
    b = np.asarray(rng.standard_normal([ext[m] for m in mb]), dtype=NP[dtype], order=npo)
    d = np.zeros([ext[m] for m in out], dtype=NP[dtype], order=npo)
    ref = np.einsum(eq, a.astype(np.float64), b.astype(np.float64))
    execute("numpy", s, a, b, None, d, 1.0, 0.0)
    err = np.max(np.abs(d.astype(np.float64) - ref)) / np.max(np.abs(ref))
    assert err <= TOL[dtype]


def test_default_l2_constant():
    assert L2_BYTES == 50 << 20
