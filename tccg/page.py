"""The results page: one Markdown file regenerated from the CSVs of benchmark runs.

``python -m tccg.report [--page tccg/RESULTS.md] [--plots tccg/plots] RUN.csv|DIR [...]`` reads the CSVs (a
directory stands for every ``tccg_*.csv`` in it; the CPU verification pass's files are left out), merges them
(a case measured twice keeps the row of the file given last), and writes the page, replacing it: per set and
dtype the table of time/floor and speed against each peer, the worst three cases, the plots, and the
commands, commits and devices of the runs. A full benchmark run split over several commands (``--set``,
``--cases``, ``--family``, ``--dtype``) is put together this way.
"""
from __future__ import annotations

import argparse
import glob
import math
import os
import sys
from collections.abc import Sequence

from . import report

DEFAULT_PAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS.md")
DEFAULT_PLOTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plots")
PLOT_PREFIX = "results_"

SET_TITLES = {
    "tccg": "TCCG: the 48 contractions of the TCCG suite, at TCCG's extents",
    "perturbed": "Perturbed TCCG: the 48 with every extent moved by up to +-15% (seeded)",
    "real": "Real codes: seeded contractions of the families real codes run",
}


def csv_paths(args: Sequence[str]) -> list[str]:
    """The CSV files named by `args` (files, or directories standing for their tccg_*.csv but the CPU pass's)."""
    out = []
    for a in args:
        if os.path.isdir(a):
            out += sorted(p for p in glob.glob(os.path.join(a, "tccg_*.csv"))
                          if not os.path.basename(p).startswith("tccg_cpu_"))
        elif os.path.isfile(a):
            out.append(a)
        else:
            raise ValueError(f"tccg.report: {a!r} is neither a CSV file nor a directory")
    if not out:
        raise ValueError(f"tccg.report: no CSV found in {list(args)}")
    return out


def _key(r: dict) -> tuple:
    return (r.get("set") or "tccg", r["num"], r["dtype"], r["order"], r.get("ops") or "none")


def merge(paths: Sequence[str]) -> tuple[list[dict], list[str]]:
    """Rows of every CSV, GPU rows only, one per (set, case, dtype, order, ops): the file given last wins.
    Returns (rows, notes on what was left out or replaced)."""
    rows: dict[tuple, dict] = {}
    notes = []
    n_cpu = n_dup = 0
    for p in paths:
        for r in report.read_csv(p):
            if r.get("device") == "cpu":
                n_cpu += 1
                continue
            r.setdefault("set", "tccg")
            r["set"] = r.get("set") or "tccg"
            n_dup += _key(r) in rows
            rows[_key(r)] = r
    if n_cpu:
        notes.append(f"{n_cpu} CPU verification row(s) left out")
    if n_dup:
        notes.append(f"{n_dup} row(s) measured again in a later file: the later kept")
    return list(rows.values()), notes


def _f(v, fmt: str = "{:.2f}") -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else fmt.format(v)


def _ms(v) -> str:
    return _f(v, "{:.4f}") if report.usable(v) else "-"


def summary_table(groups: dict) -> list[str]:
    """The page's main table: one line per (set, dtype, ops, order) group, then the orders together."""
    head = ("set", "dtype", "order", "cases", "verified", "gettpy t/floor", "torch t/floor", "cuTENSOR t/floor",
            "x torch", "x cuTENSOR", "x cuTENSOR best", "x cupy", "faster peer / gettpy: geomean", "min",
            "slower than it", "run time (s)")
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (set_name, dt, ops, order), rs in groups.items():
        st = report.group_stats(rs)
        wall = sum(r.get("wall_s") or 0 for r in rs)
        label_dt = dt if ops == "none" else f"{dt} ops={ops}"
        bold = "**" if order == "both" else ""
        cells = (set_name, label_dt, f"{bold}{order}{bold}", str(st["n"]), str(st["verified"]),
                 f"{bold}{_f(st['tf_gettpy'])}{bold}", _f(st["tf_torch"]), _f(st["tf_cutensor"]),
                 _f(st["x_torch"]), _f(st["x_cutensor"]), _f(st["x_cutensor_best"]), _f(st["x_cupy"]),
                 f"{bold}{_f(st['x_faster'], '{:.3f}')}{bold}", _f(st["x_faster_min"], "{:.3f}"),
                 f"{st['slower']} of {st['n_faster']}" if st["n_faster"] else "-", f"{wall:.0f}" if wall else "-")
        out.append("| " + " | ".join(cells) + " |")
    return out


def case_table(rows: Sequence[dict]) -> list[str]:
    """Per case: extents, times, time/floor, speed against each peer and the faster one."""
    head = ("#", "family", "contraction", "extents", "order", "floor ms", "gettpy ms", "t/floor", "torch ms",
            "cuTENSOR ms", "x torch", "x cuTENSOR", "x faster peer", "rel err", "status")
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in sorted(rows, key=lambda r: (r["num"], r["order"])):
        status = "error" if r.get("error") else "ok" if r.get("ok") not in (False, 0) else "WRONG"
        cells = (str(r["num"]), str(r.get("group") or ""), f"`{r['contraction']}`", str(r.get("extents") or ""),
                 r["order"], _ms(r.get("floor_ms")), _ms(r.get("gettpy_ms")),
                 _f(report.ratio(r.get("gettpy_ms"), r.get("floor_ms"))), _ms(r.get("torch_ms")),
                 _ms(r.get("cutensor_ms")), _f(report.ratio(r.get("torch_ms"), r.get("gettpy_ms"))),
                 _f(report.ratio(r.get("cutensor_ms"), r.get("gettpy_ms"))), _f(report.vs_faster(r), "{:.3f}"),
                 _f(r.get("max_rel_err"), "{:.1e}"), status)
        out.append("| " + " | ".join(cells) + " |")
    return out


def _distinct(rows, key) -> list[str]:
    return list(dict.fromkeys(str(r.get(key)) for r in rows if r.get(key) not in (None, "")))


def write_plots(groups: dict, plot_dir: str) -> dict[tuple[str, str, str], str]:
    """One PNG per (set, dtype, ops) into `plot_dir` (earlier PNGs of this page there are removed first);
    {(set, dtype, ops): path}. Empty when matplotlib is missing."""
    try:
        from . import plots
    except ImportError:  # pragma: no cover - plots only needs matplotlib at call time
        return {}
    os.makedirs(plot_dir, exist_ok=True)
    for old in glob.glob(os.path.join(plot_dir, f"{PLOT_PREFIX}*.png")):
        os.remove(old)
    out = {}
    for (set_name, dt, ops, order), rs in groups.items():
        if order != "both" and any(k[:3] == (set_name, dt, ops) and k[3] == "both" for k in groups):
            continue
        name = f"{PLOT_PREFIX}{set_name}_{dt}" + ("" if ops == "none" else f"_{ops}") + ".png"
        try:
            p = plots.plot_set(rs, os.path.join(plot_dir, name), f"{set_name}, {dt}" + (
                "" if ops == "none" else f", ops {ops}"))
        except ImportError:
            return {}
        if p:
            out[(set_name, dt, ops)] = p
    return out


def render(rows: Sequence[dict], sources: Sequence[str], notes: Sequence[str], plot_paths: dict,
           page_path: str, regenerate: str) -> str:
    """The page's Markdown text."""
    groups = report.set_groups(rows)
    devices = _distinct(rows, "device")
    commits = _distinct(rows, "commit")
    commands = _distinct(rows, "command")
    n_cut = sum(1 for r in rows if report.usable(r.get("cutensor_ms")))
    lines = [
        "# gettpy benchmark results",
        "",
        f"Generated by `{regenerate}` from {len(sources)} CSV file(s) of `python -m tccg` runs; the command "
        "replaces this page, so do not edit it by hand. How each number is measured: `tccg/README.md`.",
        "",
        f"* **Device**: {', '.join(devices) or 'unknown'}",
        f"* **Commit**: {', '.join(f'`{c}`' for c in commits) or 'unknown'}",
        "* **Peers**: torch.einsum, cupy.einsum, cuTENSOR "
        + (f"(timed in {n_cut} of {len(rows)} rows)" if n_cut else "(not available in these runs)"),
        "* **time/floor**: time over the roofline floor max(bytes of A, B and C once / copy bandwidth, "
        "flops / GEMM peak), both measured in the run. **x peer**: the peer's time / gettpy's (> 1: gettpy "
        "faster). **faster peer**: the faster of torch.einsum and cuTENSOR's default algorithm per case (cupy.einsum "
        "is not graph-captured, so its times include host overhead). All geomeans over the verified cases.",
        "",
        "The runs:",
        "",
        "```bash",
        *commands,
        "```",
        "",
    ]
    if notes:
        lines += [f"({'; '.join(notes)})", ""]
    lines += ["## Summary", "", *summary_table(groups), ""]
    for set_name in dict.fromkeys(k[0] for k in groups):
        lines += [f"## {SET_TITLES.get(set_name, set_name)}", ""]
        for (s, dt, ops, order), rs in groups.items():
            if s != set_name or order != "both" and (s, dt, ops, "both") in groups:
                continue
            st = report.group_stats(rs)
            title = dt if ops == "none" else f"{dt}, ops {ops}"
            lines += [f"### {set_name}, {title}", ""]
            if st["worst"]:
                lines.append("Lowest faster peer / gettpy: " + "; ".join(
                    f"{label}: {v:.3f}x" for label, v in st["worst"]) + ".")
                lines.append("")
            failed = [r for r in rs if not report.verified(r)]
            if failed:
                lines.append("Not verified or failed: " + "; ".join(
                    f"{report.row_label(r)}: {(r.get('error') or 'wrong result')[:120]}" for r in failed) + ".")
                lines.append("")
            p = plot_paths.get((s, dt, ops))
            if p:
                rel = os.path.relpath(p, os.path.dirname(os.path.abspath(page_path))).replace(os.sep, "/")
                lines += [f"![{set_name} {title}]({rel})", ""]
            lines += ["<details><summary>per case</summary>", "", *case_table(rs), "", "</details>", ""]
    return "\n".join(lines).rstrip() + "\n"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m tccg.report",
                                description="Regenerate the results page (tccg/RESULTS.md) from benchmark CSVs.")
    p.add_argument("csv", nargs="+", help="CSV files of python -m tccg runs, or directories holding them")
    p.add_argument("--page", default=DEFAULT_PAGE, help="the page to write (replaced; default tccg/RESULTS.md)")
    p.add_argument("--plots", default=DEFAULT_PLOTS,
                   help="directory of the page's PNGs (default tccg/plots); --plots none: no plots")
    return p


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(argv)
    try:
        paths = csv_paths(args.csv)
        rows, notes = merge(paths)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not rows:
        print("error: the CSVs hold no GPU rows", file=sys.stderr)
        return 2
    groups = report.set_groups(rows)
    plot_paths = {} if args.plots.lower() == "none" else write_plots(groups, args.plots)
    regenerate = "python -m tccg.report " + " ".join(argv)
    text = render(rows, paths, notes, plot_paths, args.page, regenerate)
    os.makedirs(os.path.dirname(os.path.abspath(args.page)) or ".", exist_ok=True)
    tmp = f"{args.page}.tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, args.page)
    print(f"page: {args.page} ({len(rows)} rows from {len(paths)} CSV file(s), {len(plot_paths)} plot(s))")
    return 0
