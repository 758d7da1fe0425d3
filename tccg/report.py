"""Pure benchmark arithmetic and output: floors, geomeans, result rows, CSV and the text table.

Nothing here touches a GPU, so all of it is tested on the CPU (tests/test_tccg_runner.py,
tests/unit/test_bench_sets.py).

Definitions (seed 004, Section IV-A):

* ``rel_perf_i = t_cuTENSOR,i / t_gettpy,i`` per contraction i (> 1: gettpy is faster);
* ``GM1 = geomean({rel_perf_i})`` over the contractions;
* ``GM2 = geomean({max(1, rel_perf_i)})``: the speedup seen by a user who may pick, per contraction,
  the faster of cuTENSOR and gettpy, over a user who has cuTENSOR only.

The seed takes t as the minimum of a few runs; we use the median of many CUDA-graph replays (see
timing.py), which is the more conservative statistic.
"""
from __future__ import annotations

import csv
import math
import os
from collections.abc import Iterable, Sequence

#: element sizes in bytes of (A, B, C) per benchmark dtype
ITEMSIZES: dict[str, tuple[int, int, int]] = {
    "f16": (2, 2, 2),
    "f16f32": (2, 2, 4),
    "bf16": (2, 2, 2),
    "f32": (4, 4, 4),
    "f64": (8, 8, 8),
    "c64": (8, 8, 8),
    "c128": (16, 16, 16),
}
DTYPES = tuple(ITEMSIZES)

#: which measured GEMM peak bounds the compute side of each benchmark dtype (a complex multiply-add is four
#: real ones: FLOP_FACTOR)
PEAK_KIND: dict[str, str] = {"f16": "f16", "f16f32": "f16", "bf16": "bf16", "f32": "f32", "f64": "f64",
                             "c64": "f32", "c128": "f64"}
FLOP_FACTOR: dict[str, int] = {"c64": 4, "c128": 4}

#: verification tolerance: max|got - ref| / max|ref| against a float64 (complex128) reference of the same inputs
TOLERANCE: dict[str, float] = {"f16": 1e-2, "f16f32": 2e-3, "bf16": 5e-2, "f32": 1e-4, "f64": 1e-10,
                               "c64": 1e-4, "c128": 1e-10}

#: CSV columns, in order (the first twelve are the ones every consumer may rely on)
COLUMNS = (
    "num", "contraction", "dtype", "order", "floor_ms", "gettpy_ms", "cutensor_ms", "cutensor_best_ms",
    "torch_ms", "cupy_ms", "max_rel_err", "device",
    "group", "ops", "M", "N", "K", "flops", "bytes", "bound", "ok", "tol",
    "gettpy_gflops", "gettpy_gbs", "gettpy_over_floor", "speedup_vs_cutensor", "speedup_vs_cutensor_best",
    "speedup_vs_torch", "speedup_vs_cupy",
    "cutensor_best_algo", "cutensor_err", "torch_err", "cupy_err", "gettpy_how", "n_sets",
    "pad_gettpy_ms", "pad_ms", "unpad_ms", "heuristic_ms", "tune_s", "torch_into_ms",
    "gettpy_torch_layout_ms", "set", "extents", "seed", "wall_s", "commit", "command", "note", "error",
)


def parse_dtypes(values: Sequence[str] | None) -> list[str]:
    """``["f16,f32", "f64"]`` -> ``["f16", "f32", "f64"]`` (default ``["f16"]``), validated."""
    out: list[str] = []
    for v in values or ["f16"]:
        for d in v.split(","):
            d = d.strip().lower()
            if not d:
                continue
            if d not in ITEMSIZES:
                raise ValueError(f"--dtype: unknown dtype {d!r} (choose from {', '.join(DTYPES)})")
            if d not in out:
                out.append(d)
    if not out:
        raise ValueError("--dtype: no dtype given")
    return out


OPS = ("none", "relu", "leaky_relu")


def parse_ops(values: Sequence[str] | None) -> list[str]:
    """``["none,relu"]`` -> ``["none", "relu"]`` (default ``["none"]``), validated."""
    out: list[str] = []
    for v in values or ["none"]:
        for o in v.split(","):
            o = o.strip().lower()
            if not o:
                continue
            if o not in OPS:
                raise ValueError(f"--ops: unknown op {o!r} (choose from {', '.join(OPS)})")
            if o not in out:
                out.append(o)
    return out or ["none"]


def floor_ms(nbytes: float, flops: float, bandwidth: float, peak: float) -> float:
    """Roofline floor in ms: max(bytes / bandwidth, flops / peak); bandwidth in B/s, peak in FLOP/s."""
    if bandwidth <= 0 or peak <= 0:
        raise ValueError(f"floor_ms: bandwidth ({bandwidth}) and peak ({peak}) must be positive")
    return 1e3 * max(nbytes / bandwidth, flops / peak)


def bound(nbytes: float, flops: float, bandwidth: float, peak: float) -> str:
    """'mem' when the memory side of the floor dominates, else 'compute'."""
    return "mem" if nbytes / bandwidth >= flops / peak else "compute"


def usable(x) -> bool:
    return x is not None and isinstance(x, int | float) and math.isfinite(x) and x > 0


def _like_for_like(r: dict) -> str:
    """'#N ms (x torch; x torch_into)': gettpy in torch's result layout against torch, and gettpy into D against
    torch with its copy into D."""
    t = r["gettpy_torch_layout_ms"]
    into = f"; {r['gettpy_ms'] / r['torch_into_ms']:.3f}x" if usable(r.get("torch_into_ms")) else ""
    return f"#{r['num']} {t:.4f} ({t / r['torch_ms']:.3f}x{into})"


def geomean(values: Iterable[float | None]) -> float:
    """Geometric mean of the positive finite values (others skipped); nan when none is left."""
    logs = [math.log(v) for v in values if usable(v)]
    return math.exp(sum(logs) / len(logs)) if logs else math.nan


def ratio(num: float | None, den: float | None) -> float | None:
    """num / den, or None when either is missing or not positive."""
    return num / den if usable(num) and usable(den) else None


def gm1_gm2(rel_perfs: Iterable[float | None]) -> tuple[float, float]:
    """(GM1, GM2) of the seed paper: geomean(rel_perf) and geomean(max(1, rel_perf))."""
    r = [v for v in rel_perfs if usable(v)]
    return geomean(r), geomean(max(1.0, v) for v in r)


def max_rel_err(got, ref) -> float:
    """max|got - ref| / max|ref| (works on numpy and cupy arrays; both cast to float64 by the caller)."""
    scale = float(abs(ref).max()) if ref.size else 0.0
    err = float(abs(got - ref).max()) if ref.size else 0.0
    if not math.isfinite(err):
        return math.inf
    return err / scale if scale > 0 else err


def derived(row: dict) -> dict:
    """Fill the columns computed from the measured ones (GFLOP/s, GB/s, ratios, speedups)."""
    g = row.get("gettpy_ms")
    if usable(g):
        row["gettpy_gflops"] = row["flops"] / (g * 1e-3) / 1e9
        row["gettpy_gbs"] = row["bytes"] / (g * 1e-3) / 1e9
    row["gettpy_over_floor"] = ratio(g, row.get("floor_ms"))
    row["speedup_vs_cutensor"] = ratio(row.get("cutensor_ms"), g)
    row["speedup_vs_cutensor_best"] = ratio(row.get("cutensor_best_ms"), g)
    row["speedup_vs_torch"] = ratio(row.get("torch_ms"), g)
    row["speedup_vs_cupy"] = ratio(row.get("cupy_ms"), g)
    return row


def new_row(case, dtype: str, order: str, ops: str, device: str) -> dict:
    """A result row with the case's static columns filled and every measurement empty."""
    row = dict.fromkeys(COLUMNS)
    row.update(num=case.num, contraction=case.contraction, group=case.group, dtype=dtype, order=order,
               ops=ops, device=device, M=case.M, N=case.N, K=case.K, flops=case.flops() * FLOP_FACTOR.get(dtype, 1),
               bytes=case.bytes(ITEMSIZES[dtype]), tol=TOLERANCE[dtype], set=getattr(case, "set_name", "tccg"),
               extents=case.extents_text(), note="", error="")
    return row


# -- per set and dtype -----------------------------------------------------------------------------------

#: the peers whose time is "the faster peer's" (cupy.einsum is left out: it cannot be graph-captured, so its
#: times include host overhead; see timing.py)
FASTER_PEERS = ("torch_ms", "cutensor_ms")


def faster_peer_ms(r: dict) -> float | None:
    """The faster of torch.einsum's and cuTENSOR's (default algorithm) times in row `r`; None when neither ran."""
    ts = [r.get(k) for k in FASTER_PEERS if usable(r.get(k))]
    return min(ts) if ts else None


def vs_faster(r: dict) -> float | None:
    """faster peer's time / gettpy's time (> 1: gettpy is faster), or None."""
    return ratio(faster_peer_ms(r), r.get("gettpy_ms"))


def verified(r: dict) -> bool:
    return not r.get("error") and r.get("ok") is not False


def row_label(r: dict) -> str:
    """``"real #41 long_k mn-mk-nk (F)"``: a case as the summaries name it."""
    return (f"{r.get('set') or 'tccg'} #{r['num']} {r.get('group') or ''} {r.get('contraction') or ''} "
            f"({r.get('order') or ''})").replace("  ", " ")


def group_stats(rows: Sequence[dict]) -> dict:
    """The numbers a results table gives for one group of rows (one set, dtype and order, or both orders):
    counts, geomean time/floor per library, geomean speed against each peer, geomean and minimum of
    (faster peer / gettpy) and the three cases where that is lowest."""
    good = [r for r in rows if verified(r)]
    st: dict = {"n": len(rows), "verified": len(good), "failed": len(rows) - len(good)}
    for lib in ("gettpy", "torch", "cutensor", "cutensor_best", "cupy"):
        st[f"tf_{lib}"] = geomean(ratio(r.get(f"{lib}_ms"), r.get("floor_ms")) for r in good)
    for lib in ("torch", "cutensor", "cutensor_best", "cupy"):
        st[f"x_{lib}"] = geomean(ratio(r.get(f"{lib}_ms"), r.get("gettpy_ms")) for r in good)
    pairs = [(vs_faster(r), r) for r in good]
    pairs = sorted(((v, r) for v, r in pairs if v is not None), key=lambda p: p[0])
    st["x_faster"] = geomean(v for v, _ in pairs)
    st["x_faster_min"] = pairs[0][0] if pairs else math.nan
    st["n_faster"] = len(pairs)
    st["slower"] = sum(1 for v, _ in pairs if v < 1)
    st["worst"] = [(row_label(r), v) for v, r in pairs[:3]]
    return st


def set_groups(rows: Sequence[dict]) -> dict[tuple[str, str, str, str], list[dict]]:
    """Rows by (set, dtype, ops, order) in first-seen order, plus the (set, dtype, ops, "both") union of the orders
    where a set and dtype ran in more than one order."""
    out: dict[tuple[str, str, str, str], list[dict]] = {}
    for r in rows:
        key = (r.get("set") or "tccg", r["dtype"], r.get("ops") or "none")
        out.setdefault((*key, r["order"]), []).append(r)
    for key in {k[:3] for k in out}:
        orders = [k for k in out if k[:3] == key]
        if len(orders) > 1:
            out[(*key, "both")] = [r for k in orders for r in out[k]]
    return dict(sorted(out.items(), key=lambda kv: (_SET_ORDER.get(kv[0][0], 9), kv[0][0], _dtype_rank(kv[0][1]),
                                                    kv[0][2], kv[0][3] == "both", kv[0][3])))


_SET_ORDER = {"tccg": 0, "perturbed": 1, "real": 2}


def _dtype_rank(d: str) -> int:
    return DTYPES.index(d) if d in DTYPES else len(DTYPES)


def _fmt_csv(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.6g}"
    return str(v)


def write_csv(rows: Sequence[dict], path: str) -> str:
    """Write `rows` with COLUMNS (then any extra keys, sorted) to `path`; empty cells for None."""
    extra = sorted({k for r in rows for k in r} - set(COLUMNS))
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS + tuple(extra))
        for r in rows:
            w.writerow([_fmt_csv(r.get(k)) for k in COLUMNS + tuple(extra)])
    return path


def read_csv(path: str) -> list[dict]:
    """Rows of a CSV written by write_csv, numbers parsed back (empty cells -> None)."""
    out = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            row = {}
            for k, v in r.items():
                if v == "":
                    row[k] = None
                    continue
                try:
                    row[k] = int(v)
                except ValueError:
                    try:
                        row[k] = float(v)
                    except ValueError:
                        row[k] = v
            out.append(row)
    return out


def _cell(v, fmt: str = "{:.4f}") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return fmt.format(v) if isinstance(v, int | float) else str(v)


def format_table(rows: Sequence[dict], gpu: bool = True) -> str:
    """The per-case table printed on stdout ('-': not measured; see the note/error columns)."""
    if gpu:
        head = ("set", "num", "contraction", "dtype", "ord", "ops", "floor", "gettpy", "t/floor", "cuT", "cuT best",
                "torch", "cupy", "xcuT", "xtorch", "rel err", "status")
    else:
        head = ("set", "num", "contraction", "dtype", "ord", "ops", "reduced extents", "rel err", "tol", "status")
    lines = []
    for r in rows:
        status = "ERROR" if r.get("error") else ("ok" if r.get("ok") else "FAIL" if r.get("ok") is False else "-")
        if gpu:
            cells = (r.get("set") or "tccg", str(r["num"]), r["contraction"], r["dtype"], r["order"],
                     r.get("ops") or "none", _cell(r.get("floor_ms")), _cell(r.get("gettpy_ms")),
                     _cell(r.get("gettpy_over_floor"), "{:.2f}"),
                     _cell(r.get("cutensor_ms")), _cell(r.get("cutensor_best_ms")), _cell(r.get("torch_ms")),
                     _cell(r.get("cupy_ms")), _cell(r.get("speedup_vs_cutensor"), "{:.2f}"),
                     _cell(r.get("speedup_vs_torch"), "{:.2f}"), _cell(r.get("max_rel_err"), "{:.1e}"), status)
        else:
            cells = (r.get("set") or "tccg", str(r["num"]), r["contraction"], r["dtype"], r["order"],
                     r.get("ops") or "none", r.get("extents") or "", _cell(r.get("max_rel_err"), "{:.1e}"),
                     _cell(r.get("tol"), "{:.0e}"),
                     status if status != "-" else "skipped")
        lines.append(cells)
    widths = [max(len(h), *(len(c[i]) for c in lines)) if lines else len(h) for i, h in enumerate(head)]
    out = ["  ".join(h.rjust(w) for h, w in zip(head, widths, strict=True))]
    out += ["  ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True)) for cells in lines]
    for r in rows:
        if r.get("error"):
            out.append(f"{r.get('set') or 'tccg'} #{r['num']} {r['dtype']} {r['order']} {r.get('ops') or 'none'}: "
                       f"error: {r['error']}")
        elif r.get("note") and not gpu:
            out.append(f"{r.get('set') or 'tccg'} #{r['num']} {r['dtype']} {r['order']} {r.get('ops') or 'none'}: "
                       f"{r['note']}")
    if gpu:
        out.append("times in ms (median of CUDA-graph replays); xcuT / xtorch = peer time / gettpy time "
                   "(> 1: gettpy faster); '-' = not measured (peer missing or failed: see CSV note/error)")
    return "\n".join(out)


def _pass_ms(r: dict, lib: str, which: str) -> float | None:
    """A library's time in row `r`: the first pass ("": lib_ms) or the interleaved one ("2": lib_ms2); None where
    it was not measured."""
    t = r.get(f"{lib}_ms{which}")
    return t if usable(t) else None


def _slower(rows: Sequence[dict], which: str = "") -> str:
    """The cases whose gettpy time exceeds the faster of cuTENSOR's and torch.einsum's (times of `which` pass, see
    _pass_ms), as "#n ratio" items, or "none"."""
    out = []
    for r in rows:
        g = _pass_ms(r, "gettpy", which)
        peer = [t for t in (_pass_ms(r, "cutensor", which), _pass_ms(r, "torch", which)) if t is not None]
        if peer and g is not None and g > min(peer):
            out.append(f"#{r['num']} {g / min(peer):.3f}x")
    return ", ".join(out) or "none"


def summarize(rows: Sequence[dict]) -> list[str]:
    """Geomean lines per (dtype, order, ops): GM1/GM2 vs cuTENSOR (default and best algo), vs torch,
    and time/floor of every library."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r.get("set") or "tccg", r["dtype"], r["order"], r.get("ops") or "none"), []).append(r)
    lines = []
    for (set_name, dt, order, ops), rs in groups.items():
        good = [r for r in rs if not r.get("error") and r.get("ok") is not False]
        n_fail = len(rs) - len(good)

        parts = [f"[{set_name} {dt} {order} ops={ops}] {len(good)}/{len(rs)} verified"
                 + (f" ({n_fail} failed)" if n_fail else "")]
        for label, key in (("cuTENSOR", "speedup_vs_cutensor"), ("cuTENSOR best algo", "speedup_vs_cutensor_best"),
                           ("torch.einsum", "speedup_vs_torch"), ("cupy.einsum", "speedup_vs_cupy")):
            vals = [r.get(key) for r in good]
            n = sum(1 for v in vals if usable(v))
            if n:
                g1, g2 = gm1_gm2(vals)
                parts.append(f"  vs {label:<18} GM1 = {g1:.3f}  GM2 = {g2:.3f}  (n={n})")
            else:
                parts.append(f"  vs {label:<18} not measured")
        tf = []
        for label, key in (("gettpy", "gettpy_ms"), ("cuTENSOR", "cutensor_ms"), ("cuTENSOR best", "cutensor_best_ms"),
                           ("torch", "torch_ms"), ("cupy", "cupy_ms")):
            vals = [ratio(r.get(key), r.get("floor_ms")) for r in good]
            g, n = geomean(vals), sum(1 for v in vals if v is not None)
            tf.append(f"{label} {g:.2f}" if n else f"{label} -")
        parts.append("  geomean time/floor: " + ", ".join(tf))
        if any(usable(r.get(k)) for r in good for k in ("cutensor_ms", "torch_ms")):
            st = group_stats(rs)
            parts.append(f"  faster peer / gettpy: geomean {st['x_faster']:.3f}, min {st['x_faster_min']:.3f} "
                         f"(n={st['n_faster']}); worst: "
                         + ", ".join(f"{label} {v:.3f}x" for label, v in st["worst"]))
            parts.append("  slower than the faster of cuTENSOR and torch.einsum: " + _slower(good))
        if any(usable(r.get("gettpy_ms2")) for r in good):
            parts.append("  interleaved (gettpy, torch, cuTENSOR default replayed in turn): slower than the faster: "
                         + _slower(good, "2"))
        moved = [r for r in good if usable(r.get("torch_into_ms")) and usable(r.get("torch_ms"))]
        if moved:
            parts.append("  torch.einsum results not in D's layout (ms, then with the copy into D): " + ", ".join(
                f"#{r['num']} {r['torch_ms']:.4f} -> {r['torch_into_ms']:.4f}" for r in moved))
        like = [r for r in good if usable(r.get("gettpy_torch_layout_ms")) and usable(r.get("torch_ms"))]
        if like:
            parts.append("  where torch.einsum was faster writing a layout of its own: gettpy in that layout "
                         "(ms, x torch), gettpy into D against torch + its copy into D: "
                         + ", ".join(_like_for_like(r) for r in like))
        tuned = [r for r in good if usable(r.get("heuristic_ms")) and usable(r.get("gettpy_ms"))]
        if tuned:
            h = geomean(r["heuristic_ms"] / r["gettpy_ms"] for r in tuned)
            hf = geomean(r["heuristic_ms"] / r["floor_ms"] for r in tuned if usable(r.get("floor_ms")))
            worst = max(tuned, key=lambda r: r["heuristic_ms"] / r["gettpy_ms"])
            parts.append(f"  autotuning (n={len(tuned)}): geomean t(heuristic)/t(tuned) = {h:.3f} (goal <= 1.05), "
                         f"heuristic time/floor {hf:.2f}; largest gain #{worst['num']} "
                         f"{worst['heuristic_ms'] / worst['gettpy_ms']:.2f}x; tuning took "
                         f"{sum(r.get('tune_s') or 0 for r in tuned):.0f} s in all")
        padded = [r for r in good if usable(r.get("pad_gettpy_ms")) and usable(r.get("gettpy_ms"))]
        if padded:
            pr = geomean(r["pad_gettpy_ms"] / r["gettpy_ms"] for r in padded)
            full = geomean((r["pad_gettpy_ms"] + (r.get("pad_ms") or 0) + (r.get("unpad_ms") or 0)) / r["gettpy_ms"]
                           for r in padded)
            parts.append(f"  padding study (n={len(padded)}): geomean t(padded)/t(unpadded) = {pr:.2f}, "
                         f"with pad + unpad copies = {full:.2f}")
        lines.extend(parts)
    for (set_name, dt, ops, order), rs in set_groups(rows).items():
        if order != "both":
            continue
        st = group_stats(rs)
        lines.append(f"[{set_name} {dt} ops={ops}, both orders] {st['verified']}/{st['n']} verified; "
                     f"geomean time/floor gettpy {st['tf_gettpy']:.2f}, torch {st['tf_torch']:.2f}, "
                     f"cuTENSOR {st['tf_cutensor']:.2f}; "
                     f"faster peer / gettpy: geomean {st['x_faster']:.3f}, min {st['x_faster_min']:.3f}, "
                     f"slower on {st['slower']} of {st['n_faster']}; worst: "
                     + (", ".join(f"{label} {v:.3f}x" for label, v in st["worst"]) or "-"))
    lines.append("GM1 = geomean(t_peer / t_gettpy); GM2 = geomean(max(1, t_peer / t_gettpy)) (seed 004, Sec. IV-A)")
    return lines


if __name__ == "__main__":  # python -m tccg.report: regenerate the results page (tccg/page.py)
    import sys

    from tccg.page import main

    sys.exit(main())
