"""How well the planner's cost model predicts measured times: the traffic model's time of each benchmarked
contraction's schedule (gettpy/plan/traffic.py's `schedule_us`, on the schedule the current checkout plans)
against the time `python -m tccg` measured for it.

    python -m tccg.model RUN.csv|DIR [...] [--worst 12] [--out model.csv]

Per set and dtype: how many schedules the model prices (it does not price split-K, tails, folds or
zero-filled packs), the geomean of measured / predicted, the share within 1.5x either way, and the
schedules it misjudges most in each direction. The model ranks a schedule's alternatives, so its errors
matter where they differ between the schedules it compares; a set whose ratios scatter widely is where
the model needs measurement. Runs on the CPU: the schedules are planned, not launched. Rows measured on
another device than the model's target, or with ops, are left out.
"""
from __future__ import annotations

import argparse
import csv
import math
from dataclasses import dataclass

#: (input, output) gettpy dtypes of each benchmark dtype the model prices
IN_OUT = {"f16": ("f16", "f16"), "f16f32": ("f16", "f32"), "bf16": ("bf16", "bf16"), "f32": ("f32", "f32"),
          "f64": ("f64", "f64")}
#: a prediction within this factor of the measured time, either way, counts as close
CLOSE = 1.5


@dataclass(frozen=True)
class Judged:
    """One measured row and the model's prediction of its schedule (microseconds), with a summary of it."""

    set: str
    num: int
    contraction: str
    dtype: str
    order: str
    measured_us: float
    predicted_us: float | None
    schedule: str

    @property
    def ratio(self) -> float | None:
        """measured / predicted (> 1: the model is optimistic)."""
        return None if not self.predicted_us else self.measured_us / self.predicted_us


def _summary(s) -> str:
    """A short description of a schedule: its stagings and the core's GEMM shape (or the direct kernel)."""
    if s.direct is not None:
        return f"direct; {s.direct.total} values, sums of {s.direct.k_total}"
    if s.longk is not None:
        lay = s.longk.layout
        return f"long-K; {lay.M} x {lay.N} x {lay.K}, tile {lay.tile.bm} x {lay.tile.bn}, {lay.slices} slices"
    parts = []
    if s.pack_a is not None:
        parts.append("pack A")
    if s.pack_b is not None:
        parts.append("pack B")
    if s.stage_d is not None:
        parts.append("split-K" if s.split_mode else "stage D")
    core = s.core
    return f"{', '.join(parts) or 'in place'}; core {core.M} x {core.N} x {core.K}" + (
        f" x {core.batch}" if core.batch > 1 else "")


def judge(rows, target=None) -> list[Judged]:
    """The model's verdict on each usable row (a dict of a `python -m tccg` CSV) of a real dtype without ops,
    measured on `target`'s device (default: the planner's default target)."""
    from gettpy.plan.direct import direct_us
    from gettpy.plan.longk import longk_us
    from gettpy.plan.schedule import make_schedule
    from gettpy.plan.target import DEFAULT_TARGET
    from gettpy.plan.traffic import schedule_us

    from . import sets
    from .report import usable
    from .runner import case_problem

    target = target or DEFAULT_TARGET
    cases: dict[tuple[str, int], dict[int, object]] = {}
    out = []
    for r in rows:
        dt = r.get("dtype", "")
        if dt not in IN_OUT or (r.get("ops") or "none") != "none" or not usable(r.get("gettpy_ms")):
            continue
        if r.get("device") and r["device"] != target.name:
            continue
        key = (r.get("set") or "tccg", int(r.get("seed") or sets.DEFAULT_SEED))
        if key not in cases:
            cases[key] = {c.num: c for c in sets.cases_of(*key)}
        case = cases[key].get(int(r["num"]))
        if case is None:
            continue
        problem = case_problem(case, *IN_OUT[dt], r["order"])
        s = make_schedule(problem, target=target)
        us = (direct_us(s.direct, problem, target) if s.direct is not None
              else longk_us(s.longk.layout, target) if s.longk is not None else schedule_us(s, target, target.sm_count))
        out.append(Judged(key[0], int(r["num"]), r["contraction"], dt, r["order"], 1e3 * float(r["gettpy_ms"]), us,
                          _summary(s)))
    return out


def summarise(judged: list[Judged], worst: int = 12) -> list[str]:
    """Lines of the per-(set, dtype) table and the largest misjudgements."""
    lines = [f"| set | dtype | rows | priced | measured / predicted: geomean | within {CLOSE}x | range |",
             "|---|---|---|---|---|---|---|"]
    groups: dict[tuple[str, str], list[Judged]] = {}
    for j in judged:
        groups.setdefault((j.set, j.dtype), []).append(j)
    for (st, dt), js in sorted(groups.items()):
        rs = [j.ratio for j in js if j.ratio]
        if not rs:
            lines.append(f"| {st} | {dt} | {len(js)} | 0 | - | - | - |")
            continue
        gm = math.exp(sum(map(math.log, rs)) / len(rs))
        close = sum(1 / CLOSE <= x <= CLOSE for x in rs) / len(rs)
        lines.append(f"| {st} | {dt} | {len(js)} | {len(rs)} | {gm:.2f} | {close:.0%} | {min(rs):.2f}-{max(rs):.2f} |")
    priced = sorted((j for j in judged if j.ratio), key=lambda j: j.ratio)
    for title, pick in (("slower than predicted", priced[::-1][:worst]), ("faster than predicted", priced[:worst])):
        lines += ["", f"Most {title} (measured / predicted):", ""]
        lines += [f"- {j.ratio:.2f}: {j.set} #{j.num} `{j.contraction}` {j.dtype} {j.order}, measured "
                  f"{j.measured_us:.1f} us, predicted {j.predicted_us:.1f} us ({j.schedule})" for j in pick]
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", nargs="+", help="CSV files of python -m tccg runs, or directories of them")
    ap.add_argument("--worst", type=int, default=12, help="misjudged schedules listed in each direction")
    ap.add_argument("--out", default="", help="also write every row's verdict to this CSV")
    args = ap.parse_args(argv)
    from .page import csv_paths, merge

    rows, _ = merge(csv_paths(args.csv))  # (a row measured again in a later file: the later kept)
    judged = judge(rows)
    print("\n".join(summarise(judged, args.worst)))
    if args.out:
        with open(args.out, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["set", "num", "contraction", "dtype", "order", "measured_us", "predicted_us", "ratio",
                        "schedule"])
            for j in judged:
                w.writerow([j.set, j.num, j.contraction, j.dtype, j.order, f"{j.measured_us:.3f}",
                            "" if j.predicted_us is None else f"{j.predicted_us:.3f}",
                            "" if j.ratio is None else f"{j.ratio:.4f}", j.schedule])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
