"""The f32 simt tiles' register caps against ptxas: on shapes in no benchmark, whose inputs are read element by
element (odd row lengths) or in vectors, the planned kernel spills at most a few words a thread, and the planner's
register estimate (`plan.passes.simt_registers`) covers what ptxas allots under the cap."""
from __future__ import annotations

import pytest
from harness import dense_problem

from gettpy.kernels import build as B
from gettpy.plan import make_plan
from gettpy.plan.passes import SIMT_REG_SLACK, _register_cap, simt_registers
from gettpy.plan.tiles import kernel_spec

CASES = [
    ("ij,jk->ik", {"i": 1501, "j": 731, "k": 1203}, "C"),        # (compute-bound, both read element by element)
    ("ij,jk->ik", {"i": 977, "j": 389, "k": 2011}, "F"),
    ("abk,kc->abc", {"a": 37, "b": 113, "k": 301, "c": 127}, "C"),
    ("kab,kc->abc", {"a": 29, "b": 113, "k": 257, "c": 301}, "C"),
    ("bik,bkj->bij", {"b": 37, "i": 203, "k": 81, "j": 199}, "C"),  # (batched)
    ("ij,jk->ik", {"i": 1504, "j": 736, "k": 1208}, "C"),        # (aligned: 16-byte vectors)
]


@pytest.mark.parametrize("eq,ext,order", CASES)
def test_planned_simt_kernels_do_not_spill(eq, ext, order):
    spec = kernel_spec(make_plan(dense_problem(eq, ext, "f32", order)), False, wgmma=False)
    t = spec.tile
    assert t.tm > 0, f"{eq} {ext}: expected a simt tile, got {t}"
    r = B.build(spec, "sm_90").report
    assert r.spill_stores <= 32, f"{eq} {ext} {order}: {t} spills {r.spill_stores} bytes ({r})"
    if t.min_blocks > 1:  # (the estimate is what set the cap: it must not have undershot what ptxas needed)
        cap = _register_cap(t.threads, t.min_blocks)
        assert simt_registers(t, spec.a, spec.b) <= cap + SIMT_REG_SLACK
        assert r.registers <= cap


@pytest.mark.parametrize("ext", [{"k": 300002, "m": 77, "n": 70}, {"k": 200002, "m": 101, "n": 51}])
def test_long_k_wgmma_cores_do_not_spill(ext):
    """Long sums over rows read in 4-byte copies (an even K that is not whole 16-byte vectors), column-major: the
    split core's tile (a cp.async-fed wgmma tile keeps only the stages its registers hold, `passes._wgmma_stages`)
    compiles without spills."""
    from gettpy.plan.schedule import make_schedule

    spec = kernel_spec(make_schedule(dense_problem("km,kn->mn", ext, "f16", "F")).core, False)
    r = B.build(spec, "sm_90a").report
    assert r.spill_stores == 0 and r.spill_loads == 0, (spec.tile, r)
