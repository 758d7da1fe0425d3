"""tccg.model (the cost model's predictions against measured times), on the CPU: which rows it judges, that each
prediction is the traffic model's time of the schedule the planner makes for that case, and the summary's
arithmetic, on rows written as `python -m tccg` writes them."""
from __future__ import annotations

import math

import pytest

from gettpy.plan.schedule import make_schedule
from gettpy.plan.target import DEFAULT_TARGET
from gettpy.plan.traffic import schedule_us
from tccg import model, report, sets
from tccg.runner import case_problem


def _row(set_name, num, dtype, order, ms, **kw):
    case = {c.num: c for c in sets.cases_of(set_name)}[num]
    r = report.new_row(case, dtype, order, "none", DEFAULT_TARGET.name)
    r.update(set=set_name, seed=sets.DEFAULT_SEED, gettpy_ms=ms, **kw)
    return r


def test_judges_real_rows_with_the_planned_schedules_time(tmp_path):
    """A memory-bound and a compute-bound TCCG row and a perturbed one, both orders: each prediction equals
    schedule_us of make_schedule's schedule for that case (an independent call), the ratio measured / predicted;
    rows with ops, of another device, without a time or of a complex dtype are left out."""
    rows = [_row("tccg", 1, "f16", "C", 0.05), _row("tccg", 12, "f32", "F", 5.0),
            _row("perturbed", 31, "f16", "F", 0.08),
            _row("tccg", 1, "f16", "F", 0.05, ops="relu"), _row("tccg", 1, "f16", "F", 0.05, device="other GPU"),
            _row("tccg", 2, "f16", "F", None)]
    path = tmp_path / "run.csv"
    report.write_csv(rows, str(path))
    got = model.judge(report.read_csv(str(path)))
    assert [(j.set, j.num, j.dtype, j.order) for j in got] == [("tccg", 1, "f16", "C"), ("tccg", 12, "f32", "F"),
                                                                ("perturbed", 31, "f16", "F")]
    for j, r in zip(got, rows, strict=False):
        case = {c.num: c for c in sets.cases_of(j.set)}[j.num]
        s = make_schedule(case_problem(case, *model.IN_OUT[j.dtype], j.order))
        want = schedule_us(s, DEFAULT_TARGET, DEFAULT_TARGET.sm_count)
        assert j.predicted_us == pytest.approx(want) and j.measured_us == pytest.approx(1e3 * r["gettpy_ms"])
        assert j.ratio == pytest.approx(j.measured_us / want)


def test_summary_arithmetic():
    """Geomean, share within CLOSE and range per (set, dtype); unpriced rows counted but not averaged; the
    misjudged lists in order."""
    J = model.Judged
    judged = [J("real", 1, "ab-ac-cb", "f16", "C", 200.0, 100.0, "in place"),
              J("real", 2, "ab-ac-cb", "f16", "F", 50.0, 100.0, "pack A"),
              J("real", 3, "ab-ac-cb", "f16", "C", 120.0, 100.0, "in place"),
              J("real", 4, "ab-ac-cb", "f16", "F", 80.0, None, "split-K")]
    lines = model.summarise(judged, worst=2)
    gm = math.exp((math.log(2.0) + math.log(0.5) + math.log(1.2)) / 3)
    assert lines[2] == f"| real | f16 | 4 | 3 | {gm:.2f} | 33% | 0.50-2.00 |"
    slow = lines.index("Most slower than predicted (measured / predicted):")
    assert lines[slow + 2].startswith("- 2.00: real #1") and lines[slow + 3].startswith("- 1.20: real #3")
    fast = lines.index("Most faster than predicted (measured / predicted):")
    assert lines[fast + 2].startswith("- 0.50: real #2")


def test_judges_direct_rows_with_the_direct_kernels_time(tmp_path):
    """Rows the planner gives the direct kernel (real #65, an elementwise product; #50, an outer product) are priced
    by plan/direct.py's model of that kernel, not by the GETT core the schedule keeps for the CPU, and summarised as
    direct."""
    from gettpy.plan.direct import direct_us

    rows = [_row("real", 65, "f16", "C", 0.02), _row("real", 50, "f32", "F", 0.5)]
    path = tmp_path / "run.csv"
    report.write_csv(rows, str(path))
    got = model.judge(report.read_csv(str(path)))
    assert [(j.num, j.dtype) for j in got] == [(65, "f16"), (50, "f32")]
    for j in got:
        case = {c.num: c for c in sets.cases_of("real")}[j.num]
        p = case_problem(case, *model.IN_OUT[j.dtype], j.order)
        s = make_schedule(p)
        assert s.direct is not None and j.schedule.startswith("direct")
        assert j.predicted_us == pytest.approx(direct_us(s.direct, p, DEFAULT_TARGET))
