"""PNG plots of a benchmark run (matplotlib, Agg backend).

* ``speedup_*.png``: per contraction, t_peer / t_gettpy for cuTENSOR (default algorithm), cuTENSOR's
  best algorithm and torch.einsum, on a log axis, with GM1 and GM2 vs cuTENSOR drawn as lines (the
  seed's Figure 1, one configuration per panel);
* ``floor_*.png``: per contraction, time / roofline floor of every library (log axis);
* ``ops_*.png`` (when the rows hold more than one --ops value): gettpy and cuTENSOR with each op,
  relative to cuTENSOR without ops (the seed's Figures 2-4).

* ``results_<set>_<dtype>.png`` (`plot_set`, for the results page): per case, time/floor of gettpy and the
  two peers, and the faster peer's time over gettpy's, both memory orders.

Re-plot from CSV files: ``python -m tccg.plots OUT_DIR results1.csv [results2.csv ...]``.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from . import report

_PEERS = (("cutensor_ms", "cuTENSOR (default)", "tab:blue", "o"),
          ("cutensor_best_ms", "cuTENSOR (best algo)", "tab:cyan", "v"),
          ("torch_ms", "torch.einsum", "tab:orange", "s"),
          ("cupy_ms", "cupy.einsum", "tab:gray", "x"))


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _groups(rows, keys):
    out: dict[tuple, list[dict]] = {}
    for r in rows:
        out.setdefault(tuple(r.get(k) or ("tccg" if k == "set" else "none") for k in keys), []).append(r)
    return out


def _usable(r) -> bool:
    return not r.get("error") and r.get("ok") is not False


def _finish(plt, fig, ax, path: str, title: str, ylabel: str, xticks=None, ncol: int = 1) -> str:
    """The axes every plot shares (log y, contraction numbers on x), then save and close."""
    ax.set_yscale("log")
    ax.set_xlabel("contraction (number in its set)")
    ax.set_ylabel(ylabel)
    if xticks is not None:
        ax.set_xticks(xticks)
        ax.tick_params(axis="x", labelsize=7)
    ax.set_title(title)
    ax.grid(True, which="both", axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="best", ncol=ncol)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_speedup(rows: Sequence[dict], path: str, title: str) -> str | None:
    """Speedup of gettpy over each peer per contraction, log axis, GM1/GM2 vs cuTENSOR."""
    plt = _plt()
    rows = sorted((r for r in rows if _usable(r)), key=lambda r: r["num"])
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(13, 4.8))
    any_data = False
    for key, label, color, marker in _PEERS[:3]:
        pts = [(r["num"], report.ratio(r.get(key), r.get("gettpy_ms"))) for r in rows]
        pts = [(n, v) for n, v in pts if v is not None]
        if not pts:
            continue
        any_data = True
        g1, g2 = report.gm1_gm2(v for _, v in pts)
        ax.scatter([n for n, _ in pts], [v for _, v in pts], color=color, marker=marker, s=28,
                   label=f"vs {label}: GM1 {g1:.2f}, GM2 {g2:.2f}")
        if key == "cutensor_ms":
            ax.axhline(g1, color="black", lw=1.2, ls="-", label=f"GM1 vs cuTENSOR = {g1:.2f}")
            ax.axhline(g2, color="red", lw=1.2, ls="--", label=f"GM2 vs cuTENSOR = {g2:.2f}")
    if not any_data:
        plt.close(fig)
        return None
    ax.axhline(1.0, color="gray", lw=0.8, ls=":")
    return _finish(plt, fig, ax, path, title, "t_peer / t_gettpy  (> 1: gettpy faster)", [r["num"] for r in rows])


def plot_floor(rows: Sequence[dict], path: str, title: str) -> str | None:
    """time / floor per contraction for gettpy and every peer (log axis)."""
    plt = _plt()
    rows = sorted((r for r in rows if _usable(r)), key=lambda r: r["num"])
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(13, 4.8))
    series = (("gettpy_ms", "gettpy", "tab:green", "D"),) + _PEERS
    drawn = False
    for key, label, color, marker in series:
        pts = [(r["num"], report.ratio(r.get(key), r.get("floor_ms"))) for r in rows]
        pts = [(n, v) for n, v in pts if v is not None]
        if not pts:
            continue
        drawn = True
        g = report.geomean(v for _, v in pts)
        ax.scatter([n for n, _ in pts], [v for _, v in pts], color=color, marker=marker, s=26,
                   label=f"{label} (geomean {g:.2f})")
    if not drawn:
        plt.close(fig)
        return None
    ax.axhline(1.0, color="black", lw=0.8)
    return _finish(plt, fig, ax, path, title, "time / roofline floor", [r["num"] for r in rows])


def plot_ops(rows: Sequence[dict], path: str, title: str) -> str | None:
    """Seed Fig. 2-4: gettpy and cuTENSOR per op configuration, relative to cuTENSOR without ops."""
    plt = _plt()
    base = {r["num"]: r.get("cutensor_ms") for r in rows if (r.get("ops") or "none") == "none" and _usable(r)}
    ops = [o for o in report.OPS if any((r.get("ops") or "none") == o for r in rows)]
    if len(ops) < 2 or not any(v for v in base.values()):
        return None
    colors = {"none": "tab:blue", "relu": "tab:green", "leaky_relu": "tab:purple"}
    fig, ax = plt.subplots(figsize=(13, 4.8))
    for o in ops:
        rs = sorted((r for r in rows if (r.get("ops") or "none") == o and _usable(r)), key=lambda r: r["num"])
        for key, marker, who in (("gettpy_ms", "o", "gettpy"), ("cutensor_ms", "^", "cuTENSOR")):
            pts = [(r["num"], report.ratio(base.get(r["num"]), r.get(key))) for r in rs]
            pts = [(n, v) for n, v in pts if v is not None]
            if pts:
                g = report.geomean(v for _, v in pts)
                ax.scatter([n for n, _ in pts], [v for _, v in pts], marker=marker, s=28, color=colors[o],
                           facecolors="none" if key == "gettpy_ms" else colors[o],
                           label=f"{who}, ops={o} (geomean {g:.2f})")
    ax.axhline(1.0, color="gray", lw=0.8, ls=":")
    return _finish(plt, fig, ax, path, title, "t_cuTENSOR(no ops) / t", ncol=2)


def plot_set(rows: Sequence[dict], path: str, title: str) -> str | None:
    """The results page's plot of one set and dtype: left, time/floor per case of gettpy, torch.einsum and
    cuTENSOR; right, faster peer's time / gettpy's per case; circles row-major (C), triangles column-major (F).
    Small (about 40 KB)."""
    plt = _plt()
    rows = [r for r in rows if _usable(r)]
    if not rows:
        return None
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.4))
    markers = {"C": "o", "F": "^"}
    drawn = False
    for key, label, color in (("gettpy_ms", "gettpy", "tab:green"), ("torch_ms", "torch.einsum", "tab:orange"),
                              ("cutensor_ms", "cuTENSOR", "tab:blue")):
        for order, marker in markers.items():
            pts = [(r["num"], report.ratio(r.get(key), r.get("floor_ms"))) for r in rows if r["order"] == order]
            pts = [(n, v) for n, v in pts if v is not None]
            if pts:
                drawn = True
                left.scatter([n for n, _ in pts], [v for _, v in pts], color=color, marker=marker, s=14,
                             label=f"{label} ({order})", alpha=0.8)
    vals = []
    for order, marker in markers.items():
        pts = [(r["num"], report.vs_faster(r)) for r in rows if r["order"] == order]
        pts = [(n, v) for n, v in pts if v is not None]
        vals += [v for _, v in pts]
        if pts:
            right.scatter([n for n, _ in pts], [v for _, v in pts], color="tab:green", marker=marker, s=14,
                          label=f"order {order}")
    if not drawn:
        plt.close(fig)
        return None
    left.axhline(1.0, color="black", lw=0.8)
    left.set_ylabel("time / roofline floor")
    right.axhline(1.0, color="gray", lw=0.8, ls=":")
    if vals:
        g = report.geomean(vals)
        right.axhline(g, color="black", lw=1.0, label=f"geomean {g:.2f}")
    right.set_ylabel("faster peer / gettpy (> 1: gettpy faster)")
    for ax in (left, right):
        ax.set_yscale("log")
        ax.set_xlabel("case")
        ax.grid(True, which="both", axis="y", alpha=0.3)
        ax.legend(fontsize=6, loc="best", ncol=2 if ax is left else 1)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=72)
    plt.close(fig)
    return path


def plot_all(rows: Sequence[dict], out_dir: str, tag: str = "") -> list[str]:
    """Every plot the rows allow; returns the paths written."""
    os.makedirs(out_dir, exist_ok=True)
    written = []
    device = next((r.get("device") for r in rows if r.get("device")), "")
    suffix = f"_{tag}" if tag else ""
    for (set_name, dt, order, ops), rs in _groups(rows, ("set", "dtype", "order", "ops")).items():
        name = f"{set_name}_{dt}_{order}_{ops}{suffix}"
        title = f"{set_name} {dt}, order {order}, ops {ops} — {device}"
        for fn, prefix in ((plot_speedup, "speedup"), (plot_floor, "floor")):
            p = fn(rs, os.path.join(out_dir, f"{prefix}_{name}.png"), title)
            if p:
                written.append(p)
    for (set_name, dt, order), rs in _groups(rows, ("set", "dtype", "order")).items():
        p = plot_ops(rs, os.path.join(out_dir, f"ops_{set_name}_{dt}_{order}{suffix}.png"),
                     f"{set_name} {dt}, order {order}: fused ops relative to cuTENSOR without ops — {device}")
        if p:
            written.append(p)
    return written


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2:
        print("usage: python -m tccg.plots OUT_DIR results.csv [more.csv ...]", file=sys.stderr)
        return 2
    rows = [r for path in argv[1:] for r in report.read_csv(path)]
    for p in plot_all(rows, argv[0]):
        print(f"plot: {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
