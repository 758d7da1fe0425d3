"""Compile many kernels without a GPU and report what ptxas says (registers, spills, smem).

Used by ``python -m tccg --compile-only --arch sm_90`` (CI has no GPU)::

    from gettpy.kernels.report import compile_suite, format_rows
    rows = compile_suite([(label, kernel_spec), ...], arch="sm_90")
    print(format_rows(rows))

`compile_suite(items, arch="sm_90", workers=None, use_cache=True) -> list[dict]`

    items: iterable of (label, KernelSpec) pairs; in place of a KernelSpec, the message of the caller's failure to
        lower its plan, reported as that row's error.
    Each row (a dict, in input order): label, path ("mma"/"simt"), tile ("128x128x32/4"), threads,
        regs, stack, spill_stores, spill_loads, smem (dynamic bytes), vec_a, vec_b, vec_d,
        no_partial, index64, wgmma_serial (ptxas serialised the wgmmas), compile_s (0 when cached),
        cached, error ("" or the first line of the failure; a failed compile does not stop the others).
"""
from __future__ import annotations

import os
import time

from .build import build, normalize_arch


def _one(args):
    label, spec, arch, use_cache = args
    row = {"label": label, "path": "", "tile": "", "threads": 0, "regs": -1, "stack": 0, "spill_stores": 0,
           "spill_loads": 0, "smem": 0, "vec_a": 0, "vec_b": 0, "vec_d": 0, "no_partial": False, "index64": False,
           "wgmma_serial": False, "compile_s": 0.0, "cached": False, "error": ""}
    if spec is None:
        return row
    t = spec.tile
    row.update(path=spec.path, tile=f"{t.bm}x{t.bn}x{t.bk}/{t.stages}", threads=t.threads, smem=spec.smem_bytes,
               vec_a=spec.a.vec, vec_b=spec.b.vec, vec_d=spec.d.vec, no_partial=spec.no_partial,
               index64=spec.index64)
    t0 = time.perf_counter()
    try:
        k = build(spec, arch, use_cache=use_cache)
    except Exception as e:  # noqa: BLE001 - reported per row
        row["error"] = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
        return row
    r = k.report
    row.update(regs=r.registers, stack=r.stack, spill_stores=r.spill_stores, spill_loads=r.spill_loads,
               wgmma_serial=r.wgmma_serial, cached=k.from_cache,
               compile_s=0.0 if k.from_cache else round(time.perf_counter() - t0, 3))
    return row


def compile_suite(items, arch: str = "sm_90", workers: int | None = None, use_cache: bool = True) -> list[dict]:
    """Compile the kernel of every (label, KernelSpec) of `items` for `arch` (no GPU needed); one report row each, in
    order (a str in place of the spec: the row's error)."""
    arch = normalize_arch(arch)
    items = list(items)
    jobs = [(label, spec if not isinstance(spec, str) else None, arch, use_cache) for label, spec in items]
    workers = workers or min(8, os.cpu_count() or 1, max(1, len(jobs)))
    if workers > 1 and len(jobs) > 1:
        import concurrent.futures as cf

        with cf.ThreadPoolExecutor(workers) as ex:  # NVRTC releases the GIL while compiling
            rows = list(ex.map(_one, jobs))
    else:
        rows = [_one(j) for j in jobs]
    for (_, spec), row in zip(items, rows, strict=True):
        if isinstance(spec, str):
            row["error"] = spec[:200]
    return rows


def format_rows(rows: list[dict]) -> str:
    """A fixed-width table of compile_suite rows, with a summary line."""
    head = f"{'label':<34} {'path':<4} {'tile':<13} {'thr':>4} {'regs':>4} {'stack':>5} {'spill':>9} {'smem':>6}  vec"
    out = [head, "-" * len(head)]
    for r in rows:
        if r["error"]:
            out.append(f"{r['label']:<34} ERROR {r['error']}")
            continue
        vec = f"{r['vec_a']}/{r['vec_b']}/{r['vec_d']}"
        out.append(f"{r['label']:<34} {r['path']:<4} {r['tile']:<13} {r['threads']:>4} {r['regs']:>4} "
                   f"{r['stack']:>5} {r['spill_stores']:>4}/{r['spill_loads']:<4} {r['smem']:>6}  {vec}"
                   + ("  wgmma serialised" if r["wgmma_serial"] else ""))
    ok = [r for r in rows if not r["error"]]
    spills = sum(1 for r in ok if r["spill_stores"] or r["spill_loads"])
    regs = max((r["regs"] for r in ok), default=0)
    serial = sum(1 for r in ok if r["wgmma_serial"])
    out.append(f"{len(ok)}/{len(rows)} compiled, {spills} with spills, {serial} with serialised wgmmas, max {regs} "
               f"registers")
    return "\n".join(out)
