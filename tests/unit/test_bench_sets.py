"""The benchmark's sets (tccg/sets.py) and its CPU pass: seeded and deterministic, the stated counts, families
and extent ranges, both memory orders, every case checked against numpy in float64 / complex128, and the
sampled float64 reference of tccg/verify.py."""
from __future__ import annotations

import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import gettpy  # noqa: E402
from tccg import report, runner, sets, verify  # noqa: E402
from tccg.suite import SUITE, Case  # noqa: E402

FAMILIES = {"ccsd", "ccsd_t", "mps", "tucker", "batched_gemm", "attention", "long_k", "tall_skinny", "outer",
            "multi_mode", "complex", "elementwise"}


def _split(c: Case):
    a, b, out = c.modes
    free_a = [m for m in a if m in out and m not in b]
    free_b = [m for m in b if m in out and m not in a]
    contracted = [m for m in a if m in b and m not in out]
    batch = [m for m in a if m in b and m in out]
    return free_a, free_b, contracted, batch


def test_sets_are_deterministic_per_seed():
    for name in ("perturbed", "real"):
        one = sets.cases_of(name, 7)
        again = (sets.perturbed if name == "perturbed" else sets.real)(7)  # (not the cached tuple)
        assert [(c.contraction, c.extents, c.dtypes) for c in one] == [(c.contraction, c.extents, c.dtypes)
                                                                        for c in again]
        other = sets.cases_of(name, 8)
        assert [c.extents for c in one] != [c.extents for c in other]
    assert sets.cases_of("tccg", 1) is SUITE and sets.cases_of("tccg", 2) is SUITE


def test_perturbed_extents_within_15_percent_mostly_not_multiples_of_8():
    cases = sets.perturbed(sets.DEFAULT_SEED)
    assert [c.num for c in cases] == list(range(1, 49))
    assert [c.contraction for c in cases] == [c.contraction for c in SUITE]
    assert {c.set_name for c in cases} == {"perturbed"}
    exts = []
    for c, t in zip(cases, SUITE, strict=True):
        assert set(c.extents) == set(t.extents)
        for m, e in t.extents.items():
            assert 0.85 * e - 1e-9 <= c.extents[m] <= 1.15 * e + 1e-9, (c.num, m, e, c.extents[m])
            exts.append(c.extents[m])
        assert c.extents != t.extents, c.num
    not8 = sum(1 for e in exts if e % 8)
    assert not8 / len(exts) >= 0.7, f"only {not8} of {len(exts)} extents are not multiples of 8"
    assert sum(1 for e in exts if e % 2) / len(exts) >= 0.35  # (odd ones among them)


def test_real_set_counts_and_families():
    cases = sets.real(sets.DEFAULT_SEED)
    assert len(cases) >= 60
    assert [c.num for c in cases] == list(range(1, len(cases) + 1))
    assert {c.group for c in cases} == FAMILIES
    counts = {f: sum(1 for c in cases if c.group == f) for f in FAMILIES}
    assert counts == {f: n for f, (_, n) in sets.FAMILIES.items()}
    assert all(n >= 4 for n in counts.values())
    cx = [c for c in cases if c.group == "complex"]
    assert {c.dtypes for c in cx} == {("c64",), ("c128",)}
    assert all(c.dtypes == () for c in cases if c.group != "complex")
    assert len({c.contraction for c in cases}) >= 35  # (each family's templates all appear)


def test_real_set_extent_ranges():
    """The families' extents lie in the ranges of the codes they stand for."""
    for seed in (sets.DEFAULT_SEED, 1, 2):
        for c in sets.real(seed):
            e = c.extents
            free_a, free_b, contracted, batch = _split(c)
            if c.group in ("ccsd", "ccsd_t"):
                occ = [e[m] for m in e if m in "ijkl"]
                vir = [e[m] for m in e if m in "abcd"]
                assert occ and vir and all(20 <= x <= 60 and x % 2 for x in occ), c
                assert all(80 <= x <= 400 and x % 2 for x in vir), c
            elif c.group == "mps":
                bonds = [e[m] for m in "abce" if m in e]
                assert bonds and all(64 <= x <= 512 and x % 2 for x in bonds), c
                assert all(2 <= e[m] <= 4 for m in "stp" if m in e), c
            elif c.group == "batched_gemm":
                assert batch == ["b"] and 8 <= e["b"] <= 64 and e["b"] % 2, c
            elif c.group == "attention":
                assert 64 <= e["d"] <= 128 and len(batch) == 2, c
            elif c.group == "long_k":
                assert math.prod(e[m] for m in contracted) >= 100_000 and c.M * c.N <= 120 * 120, c
            elif c.group == "tall_skinny":
                assert max(c.M, c.N) >= 100_000 and min(c.M, c.N) <= 64, c
            elif c.group in ("outer", "elementwise"):
                assert not contracted, c
            elif c.group == "multi_mode":
                assert len(contracted) >= 3, c
    real = sets.real(sets.DEFAULT_SEED)
    assert 80 in {c.extents["d"] for c in real if c.group == "attention"}
    assert any(c.L > 1 for c in real if c.group == "attention")


@pytest.mark.parametrize("seed", [sets.DEFAULT_SEED, 3])
def test_real_cases_are_sized_for_the_h100(seed):
    lo, hi = sets.FLOOR_MS
    for c in sets.real(seed):
        for dt in c.dtypes or ("f16", "f32"):
            f = sets.nominal_floor_ms(c, dt)
            assert (f >= lo if dt in ("f16", "c64", "c128") else True) and f <= hi, (c, dt, f)


def test_nominal_floor_and_complex_flops():
    c = Case(1, "x", "ij-ik-kj", {"i": 1000, "j": 1000, "k": 1000}, set_name="real", dtypes=("c64",))
    assert sets.nominal_floor_ms(c, "c64") == pytest.approx(1e3 * 4 * 2e9 / sets.NOMINAL["f32"])
    row = report.new_row(c, "c64", "C", "none", "cpu")
    assert row["flops"] == 8 * 1000**3 and row["bytes"] == 3 * 8 * 1000**2 and row["set"] == "real"
    assert c.runs_in("c64") and not c.runs_in("c128") and not c.runs_in("f16")
    assert SUITE[0].runs_in("f16") and not SUITE[0].runs_in("c64")


def test_parse_sets_families_orders_and_items(tmp_path):
    assert sets.parse_sets(None) == ["tccg"]
    assert sets.parse_sets("all") == ["tccg", "perturbed", "real"]
    assert sets.parse_sets("real,tccg,real") == ["real", "tccg"]
    with pytest.raises(ValueError, match="unknown set"):
        sets.parse_sets("tcg")
    real = sets.cases_of("real")
    assert {c.group for c in sets.select(real, "long_k,complex")} == {"long_k", "complex"}
    with pytest.raises(ValueError, match="--family"):
        sets.select(real, "ccsdt")
    assert runner.parse_orders("f,C") == ["F", "C"]
    with pytest.raises(ValueError, match="--order"):
        runner.parse_orders("A")
    args = runner.build_parser().parse_args(["--set", "real", "--family", "complex,outer", "--dtype", "f32,c64"])
    args.sets, args.dtypes = sets.parse_sets(args.set), report.parse_dtypes(args.dtype)
    args.orders, args.ops = runner.parse_orders(args.order), report.parse_ops(args.ops)
    items = runner.items_of(args)
    n_outer = sum(1 for c in real if c.group == "outer")
    n_c64 = sum(1 for c in real if c.dtypes == ("c64",))
    assert len(items) == 2 * (n_outer + n_c64)
    assert {o for _, _, o, _ in items} == {"C", "F"}
    assert "c128" in runner.skipped_note(args)
    assert runner.main(["--set", "real", "--cases", "99", "--out", str(tmp_path)]) == 2
    assert runner.main(["--set", "real", "--family", "ccsdt", "--list"]) == 2
    # (with several sets a family need only be in one of them)
    args.sets, args.family = ["tccg", "real"], "long_k,ao2mo"
    got = runner.items_of(args)
    assert {(c.set_name, c.group) for c, *_ in got} == {("tccg", "ao2mo"), ("real", "long_k")}


def test_list_prints_the_selected_cases(capsys):
    assert runner.main(["--set", "real", "--family", "complex", "--list"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    cx = [c for c in sets.cases_of("real") if c.group == "complex"]
    assert len(lines) == len(cx)
    for line, c in zip(lines, cx, strict=True):
        assert line.split()[:4] == ["real", str(c.num), "complex", c.contraction]
        assert c.extents_text() in line and line.endswith(c.dtypes[0])
    gemm = {c.dtypes for c in cx if c.contraction == "ij-ik-kj"}
    assert gemm == {("c64",), ("c128",)}  # (each complex template meets both dtypes)


@pytest.mark.parametrize("order", ["C", "F"])
def test_cpu_operands_are_packed_in_the_order(order):
    rng = np.random.default_rng(0)
    for c in (sets.cases_of("real")[0].reduced(4000), sets.cases_of("perturbed")[5].reduced(4000)):
        for dt in ("f16", "f32", "c64"):
            a, b, out = runner.cpu_operands(c, dt, order, rng)
            for x, shape in zip((a, b, out), c.shapes(), strict=True):
                assert x.shape == shape
                want = tuple(s * x.itemsize for s in runner._strides(shape, order))
                assert x.strides == want, (c.contraction, dt, order, x.strides, want)
            if dt == "c64":
                assert a.dtype == np.complex64 and np.abs(a.imag).max() > 0


@pytest.mark.parametrize("set_name", ["perturbed", "real"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_every_reduced_case_matches_numpy(set_name, order):
    """gettpy's CPU executor on every case of the set at reduced extents, written into an `order` output, against
    numpy.einsum in float64 / complex128 (computed here, not by the runner)."""
    rng = np.random.default_rng(11)
    for case in sets.cases_of(set_name):
        small = case.reduced(3000)
        dt = case.dtypes[0] if case.dtypes else "f64"
        a, b, out = runner.cpu_operands(small, dt, order, rng)
        subs = small.einsum_subscripts()
        got = gettpy.einsum(subs, a, b, out=out)
        assert got is out
        wide = np.complex128 if dt.startswith("c") else np.float64
        ref = np.einsum(subs, a.astype(wide), b.astype(wide))
        tol = 1e-4 if dt == "c64" else 1e-10
        assert np.abs(got - ref).max() <= tol * max(1.0, np.abs(ref).max()), (case.num, case.contraction)


def test_cpu_pass_all_sets(tmp_path):
    """python -m tccg --cpu --set all, both orders, real and complex dtypes: every row verified."""
    rc = runner.main(["--cpu", "--set", "all", "--dtype", "f16,f32,c64,c128", "--max-elems", "2000",
                      "--out", str(tmp_path)])
    assert rc == 0
    (path,) = tmp_path.glob("tccg_cpu_*.csv")
    rows = report.read_csv(str(path))
    real = sets.cases_of("real")
    n_real_cases = sum(1 for c in real if not c.dtypes)
    want = 2 * (2 * 48 + 2 * 48 + 2 * n_real_cases + sum(1 for c in real if c.dtypes))
    assert len(rows) == want
    assert all(r["ok"] == 1 for r in rows)
    assert {r["set"] for r in rows} == {"tccg", "perturbed", "real"} and {r["order"] for r in rows} == {"C", "F"}
    assert all(r["command"].startswith("python -m tccg --cpu --set all") and r["seed"] == sets.DEFAULT_SEED
               for r in rows)


def test_sample_index_and_sampled_reference():
    case = Case(1, "x", "abc-adb-dc", {"a": 37, "b": 5, "c": 29, "d": 11})
    idx = verify.sample_index(case, 200, np.random.default_rng(1))
    assert set(idx) == {"a", "b", "c"}
    assert math.prod(len(v) for v in idx.values()) <= 200
    for m, v in idx.items():
        assert list(v) == sorted(set(v.tolist())) and 0 <= v[0] and v[-1] < case.extents[m]
        if len(v) >= 2:
            assert v[0] == 0 and v[-1] == case.extents[m] - 1
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, case.shapes()[0])
    b = rng.uniform(-1, 1, case.shapes()[1])
    full = np.einsum(case.einsum_subscripts(), a, b)
    ref = verify.Reference(case, a, b, lambda x: x, False, idx)
    assert np.allclose(ref.ref, full[np.ix_(idx["a"], idx["b"], idx["c"])], rtol=0, atol=1e-12)
    assert ref.err(full) < 1e-15 and "sampled" in ref.note
    bad = full.copy()
    bad[idx["a"][1], idx["b"][0], idx["c"][-1]] += 0.5
    assert ref.err(bad) > 1e-3
    whole = verify.Reference(case, a, b, lambda x: x, False)
    assert whole.index is None and whole.err(full) < 1e-15 and whole.note == ""
    assert verify.needs_sampling(case, 100, 1e12) and not verify.needs_sampling(case, 10**6, 1e12)


def test_real_set_is_the_same_in_every_process():
    """The seeded sets draw their extents in a fixed mode order: two interpreters with different hash seeds
    (which reorder Python's sets of modes) build the same cases."""
    import subprocess
    import sys

    code = ("from tccg import sets; print([(c.contraction, sorted(c.extents.items())) "
            "for n in ('real', 'perturbed') for c in sets.cases_of(n)])")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2", "3")}
    assert len(outs) == 1 and "irk-ijk-rj" in outs.pop()
