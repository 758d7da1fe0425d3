"""The results page (python -m tccg.report, tccg/page.py) regenerated from small synthetic CSVs: the numbers of
its tables against values worked out by hand, the merge of several runs, and the page replaced, never appended."""
from __future__ import annotations

import math
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from tccg import page, report  # noqa: E402
from tccg.suite import Case  # noqa: E402

DEVICE = "NVIDIA H100 80GB HBM3"
CMD = "python -m tccg --set real --dtype f16"


def _row(num, order, floor, gettpy, torch, cutensor, dtype="f16", set_name="real", **kw):
    case = Case(num, "long_k" if num == 1 else "attention", "mn-mk-nk" if num == 1 else "zhqs-zhqd-zhsd",
                {m: 7 for m in "mnkzhqsd"}, set_name=set_name)
    r = report.new_row(case, dtype, order, "none", kw.pop("device", DEVICE))
    r.update(floor_ms=floor, gettpy_ms=gettpy, torch_ms=torch, cutensor_ms=cutensor, max_rel_err=1e-4, ok=True,
             wall_s=3.0, commit="0123abcd", command=CMD, seed=5, **kw)
    return report.derived(r)


def _rows():
    # faster peer / gettpy: #1 C 3/2 = 1.5, #1 F 2/1 = 2, #2 C 2/4 = 0.5, #2 F 2/2 = 1
    return [_row(1, "C", 1.0, 2.0, 4.0, 3.0), _row(1, "F", 1.0, 1.0, 2.0, None),
            _row(2, "C", 2.0, 4.0, 2.0, 8.0), _row(2, "F", 2.0, 2.0, 2.0, 4.0)]


def test_group_stats_by_hand():
    rows = _rows()
    c = report.group_stats([r for r in rows if r["order"] == "C"])
    assert c["tf_gettpy"] == pytest.approx(2.0) and c["tf_torch"] == pytest.approx(2.0)
    assert c["x_faster"] == pytest.approx(math.sqrt(0.75)) and c["x_faster_min"] == pytest.approx(0.5)
    assert c["x_torch"] == pytest.approx(1.0) and c["x_cutensor"] == pytest.approx(math.sqrt(1.5 * 2))
    assert c["slower"] == 1 and c["n_faster"] == 2
    both = report.group_stats(rows)
    assert both["tf_gettpy"] == pytest.approx(math.sqrt(2))
    assert both["x_faster"] == pytest.approx(1.5 ** 0.25)
    assert [v for _, v in both["worst"]] == pytest.approx([0.5, 1.0, 1.5])
    assert both["worst"][0][0] == "real #2 attention zhqs-zhqd-zhsd (C)"
    text = "\n".join(report.summarize(rows))
    assert ("[real f16 ops=none, both orders] 4/4 verified; geomean time/floor gettpy 1.41, torch 1.68, cuTENSOR "
            "2.88; faster peer / gettpy: geomean 1.107, min 0.500, slower on 1 of 4; worst: real #2 attention "
            "zhqs-zhqd-zhsd (C) 0.500x") in text
    groups = report.set_groups(rows)
    assert list(groups) == [("real", "f16", "none", "C"), ("real", "f16", "none", "F"), ("real", "f16", "none", "both")]


def test_page_from_a_synthetic_csv(tmp_path):
    run = tmp_path / "run"
    rows = _rows()
    bad = _row(1, "C", 1.0, None, 2.0, None, dtype="f32", set_name="tccg")
    bad.update(ok=False, error="KernelError: boom")
    report.write_csv(rows + [bad, _row(2, "C", 1.0, 1.0, 2.0, 2.0, dtype="f32", set_name="tccg")],
                     str(run / "tccg_real_f16_CF_none_1.csv"))
    cpu = _row(1, "C", None, None, None, None, device="cpu")
    report.write_csv([cpu], str(run / "tccg_cpu_real_1.csv"))  # (left out: the CPU pass)
    out = tmp_path / "site" / "RESULTS.md"
    out.parent.mkdir()
    out.write_text("OLD PAGE that must not survive\n")
    plots = tmp_path / "site" / "plots"
    plots.mkdir()
    (plots / "results_stale_f64.png").write_bytes(b"old")
    assert page.main([str(run), "--page", str(out), "--plots", str(plots)]) == 0
    text = out.read_text()
    assert "OLD PAGE" not in text and text.count("# gettpy benchmark results") == 1
    assert DEVICE in text and "`0123abcd`" in text and CMD in text
    assert "python -m tccg.report " in text
    # summary lines: set, dtype, order, cases, verified, t/floor gettpy, torch, cuTENSOR, x torch, x cuTENSOR,
    # x cuTENSOR best, x cupy, faster peer geomean, min, slower, run time
    assert "| real | f16 | C | 2 | 2 | 2.00 | 2.00 | 3.46 | 1.00 | 1.73 | - | - | 0.866 | 0.500 | 1 of 2 | 6 |" in text
    assert "| real | f16 | F | 2 | 2 | 1.00 | 1.41 | 2.00 | 1.41 | 2.00 | - | - | 1.414 | 1.000 | 0 of 2 | 6 |" in text
    assert "| real | f16 | **both** | 4 | 4 | **1.41** | 1.68 | 2.88 |" in text
    assert "**1.107** | 0.500 | 1 of 4 | 12 |" in text
    assert "| tccg | f32 | C | 2 | 1 | 1.00 |" in text
    assert text.index("| tccg | f32") < text.index("| real | f16")  # (sets in their order)
    assert ("Lowest faster peer / gettpy: real #2 attention zhqs-zhqd-zhsd (C): 0.500x; real #2 attention "
            "zhqs-zhqd-zhsd (F): 1.000x; real #1 long_k mn-mk-nk (C): 1.500x.") in text
    assert "Not verified or failed: tccg #1 long_k mn-mk-nk (C): KernelError: boom." in text
    assert "from 1 CSV file(s)" in text  # (the directory's CPU-pass CSV is not read)
    rows, notes = page.merge([str(run / "tccg_cpu_real_1.csv")])
    assert rows == [] and notes == ["1 CPU verification row(s) left out"]
    assert "| 2 | attention | `zhqs-zhqd-zhsd` |" in text and "| 0.500 |" in text
    if plots.joinpath("results_real_f16.png").exists():  # (matplotlib installed)
        assert "![real f16](plots/results_real_f16.png)" in text
        png = plots / "results_real_f16.png"
        assert png.read_bytes()[:4] == b"\x89PNG" and png.stat().st_size < 200_000
        assert not (plots / "results_stale_f64.png").exists()
    # regenerated, not appended: the same input gives the same page
    assert page.main([str(run), "--page", str(out), "--plots", str(plots)]) == 0
    assert out.read_text() == text


def test_merge_keeps_the_later_measurement(tmp_path):
    first = report.write_csv(_rows(), str(tmp_path / "a.csv"))
    again = _row(2, "C", 2.0, 1.0, 2.0, 8.0)  # (#2 C measured again: now 2x ahead of the faster peer)
    again["command"] = "python -m tccg --set real --cases 2 --order C"
    second = report.write_csv([again], str(tmp_path / "b.csv"))
    rows, notes = page.merge([first, second])
    assert len(rows) == 4 and any("later" in n for n in notes)
    st = report.group_stats([r for r in rows if r["order"] == "C"])
    assert st["x_faster"] == pytest.approx(math.sqrt(1.5 * 2.0)) and st["slower"] == 0
    out = tmp_path / "R.md"
    assert page.main([first, second, "--page", str(out), "--plots", "none"]) == 0
    text = out.read_text()
    assert CMD in text and "--cases 2 --order C" in text and "![" not in text
    assert page.main([str(tmp_path / "missing.csv"), "--page", str(out)]) == 2
