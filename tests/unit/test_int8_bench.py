"""The int8 benchmark hook (`python -m tccg --dtype i8`, tccg/int8.py) without a GPU: its --dtype parsing, the
reduced-size CPU pass of int8 cases into int32 against numpy's int64 einsum (exit status, CSV rows), and the
summary's geomean over the compute-bound cases that ran on the int8 tile."""
from __future__ import annotations

import csv
import glob
import math
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from tccg import int8, runner  # noqa: E402


@pytest.mark.parametrize("values,want", [(None, False), (["f16"], False), (["i8"], True), (["I8"], True),
                                         (["i8,"], True)])
def test_wants_int8(values, want):
    assert int8.wants_int8(values) is want


def test_i8_runs_alone(capsys):
    assert runner.main(["--dtype", "i8,f16", "--cases", "12", "--cpu"]) == 2
    assert "--dtype i8 runs on its own" in capsys.readouterr().err


def test_cpu_pass(tmp_path, capsys):
    """Two cases in both orders: every row verified (equal to numpy's int64 einsum cast to int32), written to CSV."""
    assert runner.main(["--dtype", "i8", "--cases", "1,12", "--cpu", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "CPU executor" in out
    (path,) = glob.glob(str(tmp_path / "tccg_i8_cpu_*.csv"))
    with open(path) as f:
        rows = list(csv.DictReader(f))
    assert [(r["num"], r["order"]) for r in rows] == [("1", "C"), ("1", "F"), ("12", "C"), ("12", "F")]
    assert all(r["int8_ok"] == "True" for r in rows)


def test_summary_geomean():
    rows = [{"compute_bound": True, "int8_tile": True, "f16_over_int8": 2.0},
            {"compute_bound": True, "int8_tile": True, "f16_over_int8": 8.0},
            {"compute_bound": True, "int8_tile": False, "f16_over_int8": 0.5},
            {"compute_bound": False, "int8_tile": False, "f16_over_int8": 1.0}]
    lines = int8.summary(rows)
    assert lines[0].startswith("f16 time / int8 time, geomean over 2 compute-bound, int8 tile: 4.00x")
    gm = math.exp((math.log(2) + math.log(8) + math.log(0.5)) / 4)
    assert f"over 4 all timed: {gm:.2f}x" in lines[1]
