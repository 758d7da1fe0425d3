"""The benchmark's GPU path on a few cases of the real set: a sampled float64 reference (an outer product too
large to recompute whole), a complex64 GEMM and a long-K reduction, both memory orders, gettpy verified and
timed (peers left out to keep it short)."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from tccg import report, runner, sets, verify  # noqa: E402
from tccg.suite import Case  # noqa: E402


@pytest.mark.gpu
def test_real_cases_run_verified_on_the_gpu(tmp_path):
    real = sets.cases_of("real")
    outer = next(c for c in real if c.group == "outer" and verify.needs_sampling(c, runner.REF_FULL_ELEMS,
                                                                                 runner.REF_FULL_FLOPS))
    cx = next(c for c in real if c.dtypes == ("c64",))
    longk = next(c for c in real if c.group == "long_k")
    cases = f"{outer.num},{cx.num},{longk.num}"
    rc = runner.main(["--set", "real", "--cases", cases, "--dtype", "f32,c64", "--no-peers", "--no-plots",
                      "--reps", "3", "--out", str(tmp_path)])
    assert rc == 0
    (path,) = tmp_path.glob("tccg_real_*.csv")
    rows = report.read_csv(str(path))
    assert len(rows) == 6 and all(r["ok"] == 1 and r["gettpy_ms"] > 0 for r in rows)
    assert {(r["num"], r["dtype"]) for r in rows} == {(outer.num, "f32"), (cx.num, "c64"), (longk.num, "f32")}
    assert all("sampled" in r["note"] for r in rows if r["num"] == outer.num)
    assert all(r["flops"] == 8 * cx.M * cx.N * cx.K for r in rows if r["num"] == cx.num)


@pytest.mark.gpu
def test_sampled_reference_on_cupy_matches_numpy():
    import cupy

    case = Case(1, "x", "abc-dab-cd", {"a": 41, "b": 7, "c": 53, "d": 19})
    rng = np.random.default_rng(4)
    a = rng.uniform(-1, 1, case.shapes()[0]) + 1j * rng.uniform(-1, 1, case.shapes()[0])
    b = rng.uniform(-1, 1, case.shapes()[1]) + 1j * rng.uniform(-1, 1, case.shapes()[1])
    idx = verify.sample_index(case, 300, rng)
    ref = verify.Reference(case, cupy.asarray(a, dtype=cupy.complex64), cupy.asarray(b, dtype=cupy.complex64),
                           lambda x: x, True, idx)
    full = np.einsum(case.einsum_subscripts(), a.astype(np.complex64).astype(np.complex128),
                     b.astype(np.complex64).astype(np.complex128))
    assert np.allclose(cupy.asnumpy(ref.ref), full[np.ix_(idx["a"], idx["b"], idx["c"])], rtol=0, atol=1e-12)
    assert ref.err(cupy.asarray(full)) < 1e-12


@pytest.mark.gpu
def test_profile_case_runs_a_real_case_row_major(capsys):
    """tccg.probes.profile_case on a case of the real set in row-major order: verified against float64 (exit 0)."""
    from tccg.probes.profile_case import main

    case = next(c for c in sets.cases_of("real") if c.group == "tucker" and not c.dtypes)
    assert main([str(case.num), "f32", "--set", "real", "--order", "C", "--reps", "1"]) == 0
    assert f"real #{case.num}" in capsys.readouterr().out
