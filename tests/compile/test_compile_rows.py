"""The row-stream kernels (TileConfig.rows) of the GPU tests compiled by NVRTC for sm_90 without spills (no GPU
needed; skipped without NVRTC or the CUDA headers)."""
from __future__ import annotations

import math

from harness import ROWS_SHAPES, TCCG2_EXTENTS, colmajor_plan, rows_tile

from gettpy import ops
from gettpy.errors import KernelError
from gettpy.plan import make_plan
from gettpy.plan.tiles import kernel_spec


def _forced(plan, tile):
    """kernel_spec with `tile` forced on the partition whose kernel A is the wide input: the planner's, or the traded
    one where the long narrow rule is off (small M, an op on an input), as tests/gpu/test_gpu_rows.py `_forced` runs."""
    from gettpy.plan.partition import partition

    try:
        return kernel_spec(plan, False, tile=tile)
    except KernelError:
        return kernel_spec(make_plan(plan.problem, part=partition(plan.problem).traded()), False, tile=tile)


def _gpu_test_specs():
    """The row-stream specs tests/gpu/test_gpu_rows.py launches (forced tiles on #2's modes and the P = 1 case), and
    the heuristic's for #2 in f16, bf16 and f16 -> f32."""
    out = [kernel_spec(colmajor_plan("dca", "bd", "abc", TCCG2_EXTENTS, d, o), False)
           for d, o in (("f16", "f16"), ("bf16", "bf16"), ("f16", "f32"))]
    for bm, bn, stages, parts, run in ROWS_SHAPES:
        ext = {"a": 104, "b": min(bn, 24) if bn >= 16 else 8, "c": 75, "d": 264}
        out.append(_forced(colmajor_plan("dca", "bd", "abc", ext, "f16", "f32"), rows_tile(bm, bn, stages, parts, run)))
    op_ext = {"a": 88, "b": 24, "c": 33, "d": 320}
    out.append(_forced(colmajor_plan("dca", "bd", "abc", op_ext, op_a=ops.leaky_relu(0.1)), rows_tile()))
    out.append(_forced(colmajor_plan("kc", "bk", "cb", {"k": 120, "b": 24, "c": 4000}), rows_tile(run=1)))
    return out


def test_rows_kernels_compile(nvrtc):
    """Every row-stream kernel of the GPU tests compiles for sm_90 (its shared memory as KernelSpec counts it: the
    wrapper's static_assert) without spills, within 128 registers a thread (512 threads a CTA)."""
    for spec in _gpu_test_specs():
        r = nvrtc.build(spec, "sm_90").report
        assert r.spill_stores == 0 and 0 < r.registers <= 65536 // spec.tile.threads, (spec.tile, r)
        assert spec.smem_bytes <= 227 * 1024 and math.ceil(spec.grid) >= 1
