"""The example client runs and agrees with numpy (on the CPU executor here; on the GPU where one is)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ccsd_doubles.py"


@pytest.mark.parametrize("argv", [["--nocc", "4", "--nvirt", "9"],
                                  ["--nocc", "3", "--nvirt", "7", "--dtype", "float32"]])
def test_ccsd_doubles_example(argv, capsys):
    spec = importlib.util.spec_from_file_location("ccsd_doubles", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(argv) == 0
    out = capsys.readouterr().out
    assert "WRONG" not in out and out.count(" ok") == 5
