"""CPU tests of the TCCG benchmark runner's pure parts: the suite table, floors, geomeans, CSV rows."""
from __future__ import annotations

import math

import pytest

from tccg import report, runner, timing
from tccg.suite import SUITE, TABLE, Case, parse_cases


@pytest.mark.parametrize("num, subs", [
    (1, "bda,dc->abc"),
    (2, "dca,bd->abc"),
    (11, "ec,abed->abcd"),      # one of the seed table's misprints, corrected
    (12, "ac,cb->ab"),
    (19, "adec,ebd->abc"),      # misprint corrected
    (35, "dfgb,geac->abcdef"),  # misprint corrected
    (44, "geac,dfgb->abcdef"),  # misprint corrected
    (48, "gfbc,dega->abcdef"),
])
def test_einsum_subscripts(num, subs):
    assert SUITE[num - 1].num == num
    assert SUITE[num - 1].einsum_subscripts() == subs


def test_suite_has_48_numbered_cases():
    assert len(SUITE) == 48
    assert [c.num for c in SUITE] == list(range(1, 49))
    assert {c.group for c in SUITE} == {"intensli", "ao2mo", "ccsd", "ccsd_t"}


@pytest.mark.parametrize("case", SUITE, ids=lambda c: f"{c.num}-{c.contraction}")
def test_mnk_match_table(case):
    _, _, _, _, m, n, k = TABLE[case.num - 1]
    assert (case.M, case.N, case.K) == (m, n, k)
    assert case.L == 1
    assert case.flops() == 2 * m * n * k


def test_shapes_and_bytes():
    c = SUITE[0]  # abc-bda-dc, a=312 b=312 c=24 d=312
    assert c.shapes() == ((312, 312, 312), (312, 24), (312, 312, 24))
    assert c.bytes(2) == 2 * (312**3 + 312 * 24 + 312 * 312 * 24)
    assert c.bytes((2, 2, 4)) == 2 * 312**3 + 2 * 312 * 24 + 4 * 312 * 312 * 24


@pytest.mark.parametrize("case", SUITE, ids=lambda c: f"{c.num}")
def test_reduced_keeps_contraction_and_bounds(case):
    r = case.reduced(max_elems=4096)
    assert r.contraction == case.contraction and r.num == case.num
    assert all(2 <= r.extents[m] <= case.extents[m] for m in case.extents)
    # every tensor fits, unless all its modes are already at the minimum extent 2
    for size, modes in zip(r.sizes(), r.modes, strict=True):
        assert size <= 4096 or all(r.extents[m] == 2 for m in modes)


def test_case_validation():
    with pytest.raises(ValueError, match="no extent"):
        Case(1, "x", "ab-ac-cb", {"a": 2, "b": 2})
    with pytest.raises(ValueError, match="C-A-B"):
        Case(1, "x", "ab-ac", {"a": 2, "b": 2, "c": 2})


def test_parse_cases():
    assert [c.num for c in parse_cases("1,7,20-23")] == [1, 7, 20, 21, 22, 23]
    assert [c.num for c in parse_cases(" 3 , 3, 2-3 ")] == [3, 2]
    assert len(parse_cases(None)) == 48 and len(parse_cases("all")) == 48
    for bad in ("0", "49", "5-3", "x", "1,,z"):
        with pytest.raises(ValueError):
            parse_cases(bad)


def test_parse_dtypes_and_ops():
    assert report.parse_dtypes(None) == ["f16"]
    assert report.parse_dtypes(["f16,f32", "f64", "f16"]) == ["f16", "f32", "f64"]
    with pytest.raises(ValueError):
        report.parse_dtypes(["f8"])
    assert report.parse_ops(None) == ["none"]
    assert report.parse_ops(["none,relu", "leaky_relu"]) == ["none", "relu", "leaky_relu"]
    with pytest.raises(ValueError):
        report.parse_ops(["gelu2"])


def test_geomean():
    assert report.geomean([2.0, 8.0]) == pytest.approx(4.0)
    assert report.geomean([1.0, None, float("nan"), 0.0, -3.0, 9.0]) == pytest.approx(3.0)
    assert math.isnan(report.geomean([]))
    assert math.isnan(report.geomean([None]))


def test_gm1_gm2():
    g1, g2 = report.gm1_gm2([0.5, 2.0, 4.0])
    assert g1 == pytest.approx((0.5 * 2 * 4) ** (1 / 3))
    assert g2 == pytest.approx((1 * 2 * 4) ** (1 / 3))
    assert report.gm1_gm2([0.25, 0.5]) == (pytest.approx(0.5 ** 1.5), 1.0)


def test_floor_and_bound():
    # memory-bound: 1 GB at 1 TB/s = 1 ms; 1 GFLOP at 1 PFLOP/s = 1 us
    assert report.floor_ms(1e9, 1e9, 1e12, 1e15) == pytest.approx(1.0)
    assert report.bound(1e9, 1e9, 1e12, 1e15) == "mem"
    # compute-bound: 1 TFLOP at 100 TFLOP/s = 10 ms
    assert report.floor_ms(1e6, 1e12, 1e12, 1e14) == pytest.approx(10.0)
    assert report.bound(1e6, 1e12, 1e12, 1e14) == "compute"
    with pytest.raises(ValueError):
        report.floor_ms(1, 1, 0, 1)


def test_floor_of_a_tccg_case():
    c = SUITE[19]  # #20, 72^6: 2 * 5184^3 flops, three 72^4 tensors
    f = report.floor_ms(c.bytes(report.ITEMSIZES["f16"]), c.flops(), 2.9e12, 760e12)
    assert f == pytest.approx(1e3 * max(3 * 72**4 * 2 / 2.9e12, 2 * 5184**3 / 760e12))


def test_max_rel_err():
    import numpy as np

    ref = np.array([1.0, -4.0, 2.0])
    assert report.max_rel_err(ref + np.array([0, 0.04, 0]), ref) == pytest.approx(0.01)
    assert report.max_rel_err(np.array([0.0, np.nan]), np.array([1.0, 1.0])) == math.inf


def test_rows_derived_and_csv_roundtrip(tmp_path):
    row = report.new_row(SUITE[0], "f16", "F", "none", "test-gpu")
    assert row["bytes"] == SUITE[0].bytes(2) and row["flops"] == SUITE[0].flops()
    row.update(floor_ms=0.02, gettpy_ms=0.04, cutensor_ms=0.08, cutensor_best_ms=0.05, torch_ms=0.2,
               max_rel_err=1e-4, ok=True)
    report.derived(row)
    assert row["speedup_vs_cutensor"] == pytest.approx(2.0)
    assert row["speedup_vs_cutensor_best"] == pytest.approx(1.25)
    assert row["speedup_vs_torch"] == pytest.approx(5.0)
    assert row["speedup_vs_cupy"] is None
    assert row["gettpy_over_floor"] == pytest.approx(2.0)
    assert row["gettpy_gflops"] == pytest.approx(SUITE[0].flops() / 0.04e-3 / 1e9)
    missing = report.derived(report.new_row(SUITE[1], "f32", "C", "relu", "test-gpu"))
    missing["error"] = "RuntimeError: boom"
    path = report.write_csv([row, missing], str(tmp_path / "r.csv"))
    back = report.read_csv(path)
    assert list(back[0])[:12] == list(report.COLUMNS[:12])
    assert back[0]["num"] == 1 and back[0]["gettpy_ms"] == pytest.approx(0.04)
    assert back[1]["gettpy_ms"] is None and back[1]["error"] == "RuntimeError: boom"
    lines = report.summarize([row, missing])
    assert any("GM1 = 2.000" in ln for ln in lines)
    assert "ERROR" in report.format_table([row, missing])


def test_timing_helpers():
    assert timing.choose_batch(0.01, 3) % 3 == 0
    assert timing.choose_batch(10.0, 2) == 2
    assert timing.choose_batch(float("nan"), 4) == 4
    assert timing.choose_batch(1e-6, 1) == timing.MAX_BATCH
    assert timing.n_input_sets(10 << 30, 50 << 20) == 2
    assert timing.n_input_sets(1 << 20, 50 << 20) == 8
    assert timing.n_input_sets(1 << 20, 50 << 20, budget_bytes=3 << 20) == 3


def test_pad_plan_multiples():
    for case in SUITE:
        ext = runner._pad_plan(case)
        padded = case.with_extents(ext)
        assert padded.M % 128 == 0 and padded.N % 128 == 0 and padded.K % 32 == 0
        assert all(ext[m] >= case.extents[m] for m in ext)


def test_strides():
    assert runner._strides((2, 3, 4), "F") == (1, 2, 6)
    assert runner._strides((2, 3, 4), "C") == (12, 4, 1)


def test_cpu_pass_small(tmp_path):
    """The CPU verification pass end to end on two cases (gettpy's CPU executor vs numpy), in both memory orders
    (the default)."""
    rc = runner.main(["--cpu", "--cases", "1,20", "--dtype", "f32,f16f32", "--ops", "none,leaky_relu",
                      "--out", str(tmp_path), "--max-elems", "2000"])
    assert rc == 0
    (csv_path,) = tmp_path.glob("tccg_cpu_*.csv")
    rows = report.read_csv(str(csv_path))
    assert len(rows) == 16 and all(r["ok"] == 1 for r in rows)
    assert {r["order"] for r in rows} == {"C", "F"}


def test_plots_from_the_committed_h100_csvs(tmp_path):
    """Every plot kind is drawn from two real H100 runs (tests/unit/data: the three dtypes, and f16 with a fused
    leaky_relu) and written as a PNG."""
    pytest.importorskip("matplotlib")
    import glob
    from pathlib import Path

    from tccg import plots, report

    csvs = glob.glob(str(Path(__file__).resolve().parent / "data" / "tccg_h100_*.csv"))
    assert len(csvs) == 2
    rows = [r for path in csvs for r in report.read_csv(path)]
    written = plots.plot_all(rows, str(tmp_path))
    kinds = {Path(p).name.split("_")[0] for p in written}
    assert kinds == {"speedup", "floor", "ops"}
    assert all(Path(p).stat().st_size > 10_000 and Path(p).read_bytes()[:4] == b"\x89PNG" for p in written)


def test_same_layout_compares_element_strides():
    """tccg.peers.same_layout: a torch-like result (shape, stride()) against a numpy array's byte strides,
    axes of extent 1 ignored (#2 of TCCG: torch.einsum returns b fastest, D is column-major)."""
    import numpy as np

    from tccg import peers

    class R:  # (what same_layout reads of a torch tensor)
        def __init__(self, shape, stride):
            self.shape, self._stride = shape, stride

        def stride(self):
            return self._stride

    d = np.empty((312, 24, 296), dtype=np.float16, order="F")  # strides (1, 312, 7488) elements
    assert peers.same_layout(R((312, 24, 296), (1, 312, 7488)), d)
    assert not peers.same_layout(R((312, 24, 296), (7104, 1, 24)), d)
    e = np.empty((5, 1, 3), dtype=np.float32, order="F")
    assert peers.same_layout(R((5, 1, 3), (1, 99, 5)), e)  # (the extent-1 axis's stride does not matter)
    assert peers.same_layout(R((5, 1, 3), (1, 99, 5)), R((5, 1, 3), (1, 5, 5)))


def test_summary_lists_cases_slower_than_the_faster_peer():
    """report.summarize: the cases slower than min(cuTENSOR, torch), and torch's results moved into D."""
    base = {"dtype": "f16", "order": "F", "ops": "none", "ok": True, "floor_ms": 1.0, "flops": 1e9, "bytes": 1e6}
    rows = [dict(base, num=1, gettpy_ms=2.0, cutensor_ms=3.0, torch_ms=1.6),  # 1.25x the faster (torch)
            dict(base, num=2, gettpy_ms=2.0, cutensor_ms=2.5, torch_ms=None),
            dict(base, num=3, gettpy_ms=1.0, cutensor_ms=0.8, torch_ms=0.9, torch_into_ms=1.4)]
    rows = [report.derived(r) for r in rows]
    text = "\n".join(report.summarize(rows))
    assert "slower than the faster of cuTENSOR and torch.einsum: #1 1.250x, #3 1.250x" in text
    assert "#3 0.9000 -> 1.4000" in text
    assert "gettpy in that layout" not in text  # (measured only where torch won in its own layout)
    like = report.derived(dict(base, num=5, gettpy_ms=1.2, cutensor_ms=3.0, torch_ms=1.0, torch_into_ms=1.5,
                               gettpy_torch_layout_ms=0.8))
    text = "\n".join(report.summarize([like]))
    assert "#5 1.200x" in text  # (still listed as slower: the strict comparison stands)
    assert "#5 0.8000 (0.800x; 0.800x)" in text  # 0.8 / 1.0, and 1.2 / 1.5
    assert "slower than" in "\n".join(report.summarize([report.derived(dict(base, num=4, gettpy_ms=1.0,
                                                                               cutensor_ms=2.0, torch_ms=3.0))]))
    assert ": none" in "\n".join(report.summarize([report.derived(dict(base, num=4, gettpy_ms=1.0,
                                                                          cutensor_ms=2.0, torch_ms=3.0))]))


def test_summary_interleaved():
    """With --interleave times (*_ms2) the summary also lists the cases slower in the interleaved timing; without
    them it adds nothing; the flag parses."""
    from tccg.runner import build_parser

    base = {"dtype": "f16", "order": "F", "ops": "none", "ok": True, "floor_ms": 1.0, "flops": 1e9, "bytes": 1e6}
    rows = [report.derived(r) for r in (
        # (first pass 1.05x torch, interleaved 0.9x)
        dict(base, num=12, gettpy_ms=2.1, torch_ms=2.0, cutensor_ms=9.0, gettpy_ms2=1.7, torch_ms2=1.9,
             cutensor_ms2=9.1),
        # (ahead first, 1.3x cuTENSOR interleaved)
        dict(base, num=41, gettpy_ms=0.9, torch_ms=1.0, cutensor_ms=1.1, gettpy_ms2=1.3, torch_ms2=1.1,
             cutensor_ms2=1.0),
        # (no interleaved peer time: not compared there)
        dict(base, num=2, gettpy_ms=1.0, torch_ms=1.1, cutensor_ms=None, gettpy_ms2=1.0, torch_ms2=None))]
    text = "\n".join(report.summarize(rows))
    assert "slower than the faster of cuTENSOR and torch.einsum: #12 1.050x" in text
    assert "interleaved (gettpy, torch, cuTENSOR default replayed in turn): slower than the faster: #41 1.300x" in text
    plain = "\n".join(report.summarize([report.derived(dict(base, num=1, gettpy_ms=1.0, torch_ms=2.0))]))
    assert "interleaved" not in plain
    assert build_parser().parse_args(["--interleave"]).interleave
    assert not build_parser().parse_args([]).interleave


def test_interleaved_ms_takes_the_runners_in_turn():
    """timing.interleaved_ms: warm-up and timed launches alternate between the runners, one each per round, and
    each runner's median is its own."""
    from tccg import timing

    order = []

    def runner(name, ms):
        return timing.Runner("graph", 1, lambda: order.append(name) or ms.pop(0))

    a = runner("a", [9.0, 1.0, 3.0, 2.0])
    b = runner("b", [9.0, 5.0, 4.0, 6.0])
    assert timing.interleaved_ms([a, b], warmup=1, reps=3) == [2.0, 5.0]
    assert order == ["a", "b"] * 4


def test_profile_case_refuses_what_it_cannot_run():
    """profile_case names the set and seed of a case number it lacks, and refuses --tile off TCCG's column-major
    cases, before any device work."""
    pytest.importorskip("cupy")
    from tccg.probes.profile_case import main

    with pytest.raises(SystemExit, match="real has no real-valued case #999"):
        main(["999", "f16", "--set", "real"])
    with pytest.raises(SystemExit, match="--tile launches TCCG cases in column-major order only"):
        main(["3", "f16", "--set", "real", "--tile", "h"])


def test_tile_probe_options():
    """tccg.probes.tiles' tile strings (profile_case --tile): ':lN' sets the copies' L2 prefetch, 'H' / 'P' take the
    heuristic's tile (P persistent) with it; '--order n=a:8,c' cuts the first mode (Partition.split_n), and the cut
    plan still contracts correctly on the CPU executor (through its layout maps, against numpy float64)."""
    import dataclasses

    import numpy as np

    from gettpy.backends.cpu import execute
    from gettpy.errors import KernelError
    from gettpy.kernels.spec import TileConfig
    from tccg.probes.tiles import core_schedule, fit_frag_ops, parse_tile, tile_from

    t = parse_tile("32x256x64/3@32x32p:l256")
    assert (t.bm, t.bn, t.bk, t.stages, t.wm, t.wn, t.persistent, t.l2_prefetch) == (32, 256, 64, 3, 32, 32, True, 256)
    assert parse_tile("128x64x16/4@8x8s:b3:k396:l128") == TileConfig(128, 64, 16, 4, tm=8, tn=8, min_blocks=3,
                                                                     sk_ctas=396, l2_prefetch=128)
    with pytest.raises(KernelError, match="l2_prefetch"):
        parse_tile("64x64x32/3@32x32:l100")
    base = TileConfig(32, 256, 64, 3, wm=32, wn=32)
    assert tile_from("H", base) == base
    assert tile_from("H:l64", base) == TileConfig(32, 256, 64, 3, wm=32, wn=32, l2_prefetch=64)
    assert tile_from("P:l128", base) == TileConfig(32, 256, 64, 3, wm=32, wn=32, persistent=True, l2_prefetch=128)
    assert tile_from("32x128x64/3@32x32", base) == TileConfig(32, 128, 64, 3, wm=32, wn=32)
    kept = TileConfig(32, 256, 64, 3, wm=32, wn=32, persistent=True, l2_prefetch=128, resident_a=True)
    assert tile_from("H", kept) == kept and tile_from("H:l0", kept) == dataclasses.replace(kept, l2_prefetch=0)
    # (':f': both fragment ops, A's not beside a resident panel; ':s': neither; fit_frag_ops: the core's ops only)
    assert tile_from("H:f", kept) == dataclasses.replace(kept, frag_op_b=True)
    assert parse_tile("32x256x64/3@32x32p:l128:r:f") == dataclasses.replace(kept, frag_op_b=True)
    both = TileConfig(128, 128, 32, 3, wm=64, wn=64, frag_op_a=True, frag_op_b=True)
    assert parse_tile("128x128x32/3@64x64:f") == both and tile_from("H:s", both) == dataclasses.replace(
        both, frag_op_a=False, frag_op_b=False)
    assert tile_from("H:r", both) == dataclasses.replace(both, resident_a=True, frag_op_a=False)
    assert fit_frag_ops(both, "", "x") == dataclasses.replace(both, frag_op_a=False)
    assert fit_frag_ops(both, "x", "") == dataclasses.replace(both, frag_op_b=False)
    tma = TileConfig(128, 256, 64, 4, wm=64, wn=256, wgmma=True, ws=True, tma=True)
    assert tile_from("H:l128", tma) is None and tile_from("P", tma) == dataclasses.replace(tma, persistent=True)

    case = Case(2, "intensli", "abc-dca-bd", {"a": 40, "b": 24, "c": 30, "d": 50})
    plan = core_schedule(case, "f32", "f32", order="n=a:8,c").core
    assert plan.part.n == ("a", "c") and plan.part.split_n == 8
    with pytest.raises(SystemExit, match="modes"):
        core_schedule(case, "f32", "f32", order="n=a:8,d")
    rng = np.random.default_rng(2)
    a, b = (np.asfortranarray(rng.uniform(-1, 1, s).astype(np.float32)) for s in case.shapes()[:2])
    d = np.zeros(case.shapes()[2], np.float32, order="F")
    execute(plan, a, b, None, d)
    ref = np.einsum(case.einsum_subscripts(), a.astype(np.float64), b.astype(np.float64))
    assert np.abs(d - ref).max() <= 1e-5 * np.abs(ref).max()


def test_compile_items_leave_out_direct_schedules():
    """--compile-only lists the GETT kernels einsum launches: an outer product and an elementwise product run on the
    direct kernel (tests/compile/test_compile_direct.py compiles its sources) and are left out; a GEMM is listed."""
    from tccg import runner, sets

    real = {c.num: c for c in sets.cases_of("real")}
    items = runner.compile_items([real[50], real[65], real[28]], ["f16", "f32"], "C")
    assert [label.split()[0] for label, _ in items] == ["r28", "r28"]
