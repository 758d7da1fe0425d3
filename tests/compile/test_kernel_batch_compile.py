"""The core kernels of schedules that stage a batch-led output (gettpy/plan/batch.py) compile for sm_90 with
NVRTC, with no spills (no GPU needed; skipped without NVRTC or the CUDA headers). Shapes in no benchmark."""
from __future__ import annotations

import math

import pytest
from harness import dense_problem

from gettpy.plan.schedule import make_schedule
from gettpy.plan.tiles import kernel_spec

# (einsum, extents, dtype, order): every one stages its output (checked)
CASES = [
    ("zhqd,zhkd->zhqk", {"z": 2, "h": 12, "q": 1537, "k": 1537, "d": 72}, "f16", "F"),
    ("zhqd,zhkd->zhqk", {"z": 2, "h": 12, "q": 1537, "k": 1537, "d": 72}, "f32", "F"),
    ("zhqk,zhkd->zhqd", {"z": 6, "h": 16, "q": 1203, "k": 1203, "d": 88}, "f16", "F"),
    ("zqhd,zkhd->zhqk", {"z": 3, "h": 14, "q": 1111, "k": 1111, "d": 72}, "f16", "F"),
    ("mkb,knb->mnb", {"b": 21, "m": 613, "n": 577, "k": 301}, "f16", "C"),
    ("mkb,knb->mnb", {"b": 21, "m": 613, "n": 577, "k": 301}, "f64", "C"),
]


@pytest.mark.parametrize("eq,ext,dtype,order", CASES)
def test_staged_core_compiles_without_spills(nvrtc, eq, ext, dtype, order):
    s = make_schedule(dense_problem(eq, ext, dtype, order))
    assert s.stage_d is not None
    spec = kernel_spec(s.core, False)
    # the core stores along the workspace's stride-1 mode: contiguous (n or m), not scalar gathers over a batch
    assert spec.d.ncontig == (s.stage_d.modes[0] in s.core.part.n)
    k = nvrtc.build(spec, "sm_90")
    assert k.report.spills == 0
    assert k.report.stack == 0 or spec.path != "mma"


# (workspace extents fastest first, D's strides of them in elements, itemsize): the copies into batch-led outputs
COPIES = [
    ((1537, 1537, 2, 12), (24, 24 * 1537, 1, 2), 2),       # scores: workspace (q, k, z, h), D = zhqk column-major
    ((1203, 88, 6, 16), (96, 96 * 1203, 1, 6), 2),         # P V: workspace (q, d, z, h)
    ((577, 613, 21), (21, 21 * 577, 1), 8),                # mnb row-major, f64: workspace (n, m, b)
]


@pytest.mark.parametrize("ext,dst,itemsize", COPIES)
def test_staged_copy_compiles_without_spills(nvrtc, ext, dst, itemsize):
    from gettpy.backends.staged import merge_axes
    from gettpy.kernels.build import compile_source
    from gettpy.kernels.permute import permute_source, plan_permute

    src, acc = [], 1
    for e in ext:
        src.append(acc)
        acc *= e
    order = sorted(range(len(ext)), key=lambda i: -dst[i])  # (D's axes slowest first, as the copy walks them)
    shape = merge_axes(tuple(ext[i] for i in order), tuple(src[i] for i in order), tuple(dst[i] for i in order))
    assert len(shape) == 2  # (the batch modes merge into one axis, and so do the workspace's two GEMM modes)
    p = plan_permute(shape, (1, shape[0]), itemsize)
    assert p is not None and p.to >= 16 // itemsize
    cubin, log = compile_source(permute_source(p), "gett_permute", "sm_90")
    assert cubin and "0 bytes spill" in log


# batched shapes in no benchmark, both memory orders: every core the planner chooses compiles; the tensor-core
# ones with no spills (the f32 simt tiles of plan/tiles.py's `_min_blocks` cap registers and may spill a few bytes
# by design)
BATCHED = [
    ("bmk,bkn->bmn", {"b": 13, "m": 517, "n": 389, "k": 611}),
    ("mkb,knb->mnb", {"b": 9, "m": 301, "n": 733, "k": 157}),
    ("bkm,bkn->bmn", {"b": 27, "m": 129, "n": 257, "k": 95}),
    ("zhqd,zhkd->zhqk", {"z": 3, "h": 12, "q": 509, "k": 701, "d": 80}),
    ("zhqk,zhkd->zhqd", {"z": 3, "h": 12, "q": 509, "k": 701, "d": 80}),
    ("zqhd,zkhd->zhqk", {"z": 5, "h": 9, "q": 383, "k": 383, "d": 72}),
]


@pytest.mark.parametrize("eq,ext", BATCHED)
@pytest.mark.parametrize("dtype", ["f16", "f32"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_batched_cores_compile(nvrtc, eq, ext, dtype, order):
    s = make_schedule(dense_problem(eq, ext, dtype, order))
    assert s.core.batch == math.prod(ext[m] for m in s.core.part.b) > 1
    spec = kernel_spec(s.core, False)
    k = nvrtc.build(spec, "sm_90")
    if spec.path in ("mma", "wgmma"):
        assert k.report.spills == 0
