"""`python -m tccg --dtype i8`: gettpy's int8 contractions against the same contractions in f16.

For every selected case and order: int8 inputs contracted into an int32 output (gettpy.einsum(..., out=int32
array): numpy's promotion keeps the inputs 8-bit, so compute-bound cases run on the int8 tensor-core tile, mma.sync
m16n8k32), verified exactly against a float64 reference (exact for int8 sums of these sizes), and the same
contraction with f16 inputs and output (the heuristic's f16 kernel, as `--dtype f16` runs it). Both timed the same
way (timing.py: CUDA-graph replays over rotating input sets, median), the rates printed side by side and written to
CSV; the summary's geomean of f16 time / int8 time over the compute-bound cases that ran on the int8 tile is the
number issue 40's goal (>= 2) is about.

Without a GPU: a reduced-size check of gettpy's CPU executor on the int8 cases against numpy's int64 einsum (no
timing).
"""
from __future__ import annotations

import csv
import math
import os
import sys

import numpy as np

#: the columns of the int8 study's CSV
COLUMNS = ("set", "num", "contraction", "order", "M", "N", "K", "compute_bound", "int8_tile", "int8_ok", "int8_ms",
           "f16_ms", "int8_tops", "f16_tflops", "f16_over_int8", "note", "extents", "commit", "command")


def wants_int8(values) -> bool:
    """Whether the --dtype arguments ask for the int8 study ("i8", alone)."""
    names = [d.strip().lower() for v in values or () for d in v.split(",") if d.strip()]
    if "i8" in names and set(names) != {"i8"}:
        raise ValueError("--dtype i8 runs on its own (it times the same contractions in f16 beside int8)")
    return "i8" in names


def _compute_bound(case) -> bool:
    from gettpy.plan.heuristic import compute_bound

    return compute_bound(case.M, case.N, case.K)


def _int8_inputs(case, order: str, rng=None):
    """int8 A and B of the case in `order` (cupy without `rng`, numpy with it), values in [-128, 127]."""
    sa, sb, _ = case.shapes()
    if rng is None:
        import cupy

        return tuple(cupy.asarray(cupy.random.randint(-128, 128, size=s, dtype=cupy.int8), order=order)
                     for s in (sa, sb))
    return tuple(np.asarray(rng.integers(-128, 128, size=s, dtype=np.int8), order=order) for s in (sa, sb))


def gpu_row(case, order: str, args, l2_bytes: int) -> dict:
    """Verify and time one case in one order: int8 into int32, then f16 into f16."""
    import cupy

    import gettpy
    from gettpy.backends import gpu_exact

    from . import timing, verify

    row = {"set": case.set_name, "num": case.num, "contraction": case.contraction, "order": order, "M": case.M,
           "N": case.N, "K": case.K, "compute_bound": _compute_bound(case), "extents": case.extents_text()}
    subs = case.einsum_subscripts()
    _, _, sc = case.shapes()
    per_set = sum(math.prod(s) for s in case.shapes()[:2]) + 4 * math.prod(sc)
    free = cupy.cuda.runtime.memGetInfo()[0]
    nsets = timing.n_input_sets(per_set, l2_bytes, budget_bytes=int(free * 0.3))
    sets = [_int8_inputs(case, order) for _ in range(nsets)]
    outs = [cupy.empty(sc, dtype=cupy.int32, order=order) for _ in range(nsets)]
    index = None
    if verify.needs_sampling(case, 300_000_000, 4e12):
        index = verify.sample_index(case, 1 << 16, np.random.default_rng(case.num))
    ref = verify.Reference(case, sets[0][0], sets[0][1], lambda x: x, False, index)
    notes = [ref.note] if ref.note else []

    # (1) int8: one verified call (recording whether the int8 tile ran), then the timing
    specs = []
    real = gpu_exact.launch_exact

    def spy(spec, *a, **k):
        specs.append(spec)
        return real(spec, *a, **k)

    gpu_exact.launch_exact = spy
    try:
        outs[0].fill(77)
        gettpy.einsum(subs, sets[0][0], sets[0][1], out=outs[0])
    finally:
        gpu_exact.launch_exact = real
    row["int8_tile"] = next((("tma" if s.tile.tma else "wgmma" if s.tile.wgmma else "mma") for s in specs if s.int8),
                            "")
    row["int8_ok"] = ref.err(outs[0]) == 0.0  # (float64 sums of int8 products are exact here)
    calls = [(lambda a=a, b=b, d=d: gettpy.einsum(subs, a, b, out=d)) for (a, b), d in zip(sets, outs, strict=True)]
    row["int8_ms"], how, _ = timing.time_cupy(calls, reps=args.reps)
    if how != "graph":
        notes.append(f"int8 timed by {how}")
    del sets, outs

    # (2) the same contraction in f16 (inputs uniform in [-1, 1), f16 result)
    sa, sb, _ = case.shapes()
    fsets = [tuple(cupy.asarray(cupy.random.uniform(-1, 1, size=s, dtype=cupy.float32).astype(cupy.float16),
                                order=order) for s in (sa, sb)) for _ in range(nsets)]
    fouts = [cupy.empty(sc, dtype=cupy.float16, order=order) for _ in range(nsets)]
    calls = [(lambda a=a, b=b, d=d: gettpy.einsum(subs, a, b, out=d)) for (a, b), d in zip(fsets, fouts, strict=True)]
    row["f16_ms"], how, _ = timing.time_cupy(calls, reps=args.reps)
    if how != "graph":
        notes.append(f"f16 timed by {how}")
    flops = case.flops()
    row["int8_tops"] = flops / (row["int8_ms"] * 1e-3) / 1e12
    row["f16_tflops"] = flops / (row["f16_ms"] * 1e-3) / 1e12
    row["f16_over_int8"] = row["f16_ms"] / row["int8_ms"]
    row["note"] = "; ".join(notes)
    return row


def cpu_row(case, order: str, args, rng) -> dict:
    """The reduced case on the CPU executor: int8 into int32 against numpy's int64 einsum."""
    import gettpy

    small = case.reduced(args.max_elems)
    a, b = _int8_inputs(small, order, rng)
    ref = np.einsum(small.einsum_subscripts(), a.astype(np.int64), b.astype(np.int64)).astype(np.int32)
    out = np.empty(ref.shape, dtype=np.int32, order=order)
    gettpy.einsum(small.einsum_subscripts(), a, b, out=out)
    return {"set": case.set_name, "num": case.num, "contraction": case.contraction, "order": order, "M": small.M,
            "N": small.N, "K": small.K, "compute_bound": _compute_bound(small),
            "int8_ok": bool(np.array_equal(out, ref)), "extents": small.extents_text(),
            "note": "reduced size, CPU executor, no timing"}


def _write(rows, path: str) -> str:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    return path


def _table(rows, gpu: bool) -> str:
    head = f"{'set':<9} {'#':>3} {'contraction':<18} {'ord':<3} {'bound':<7} {'ok':<3}"
    if gpu:
        head += f" {'tile':<5} {'int8 ms':>9} {'f16 ms':>9} {'int8 TOPS':>9} {'f16 TF':>8} {'f16/i8':>7}"
    lines = [head]
    for r in rows:
        line = (f"{r['set']:<9} {r['num']:>3} {r['contraction']:<18} {r['order']:<3} "
                f"{'compute' if r.get('compute_bound') else 'memory':<7} {'yes' if r.get('int8_ok') else 'NO':<3}")
        if gpu and "int8_ms" in r:
            line += (f" {r['int8_tile'] if r['int8_tile'] else 'simt':<5} {r['int8_ms']:>9.4f} {r['f16_ms']:>9.4f} "
                     f"{r['int8_tops']:>9.1f} {r['f16_tflops']:>8.1f} {r['f16_over_int8']:>7.2f}")
        elif gpu:
            line += f" error: {r.get('note', '')}"
        lines.append(line)
    return "\n".join(lines)


def summary(rows) -> list[str]:
    """The geomean of f16 time / int8 time over the compute-bound cases that ran on the int8 tile, and over all."""
    out = []
    for what, sel in (("compute-bound, int8 tile", [r for r in rows if r.get("compute_bound") and r.get("int8_tile")
                                                     and r.get("f16_over_int8")]),
                      ("all timed", [r for r in rows if r.get("f16_over_int8")])):
        if sel:
            gm = math.exp(sum(math.log(r["f16_over_int8"]) for r in sel) / len(sel))
            out.append(f"f16 time / int8 time, geomean over {len(sel)} {what}: {gm:.2f}x (issue 40's goal: >= 2)")
    return out


def run(args, cases_of) -> int:
    """The int8 study on the selected cases (`cases_of(args)`: (case, order) pairs)."""
    import datetime as _dt

    from . import peers

    stamp = _dt.datetime.now().strftime("%Y%m%d_%H%M%S")
    rows = []
    gpu = peers.have_gpu() and not args.cpu
    l2 = 50 << 20
    if gpu:
        import cupy

        l2 = int(cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id).get("l2CacheSize", l2))
    else:
        print("no CUDA GPU found: the int8 cases at reduced size on the CPU executor (no timing)")
    for case, order in cases_of(args):
        try:
            if gpu:
                row = gpu_row(case, order, args, l2)
            else:
                row = cpu_row(case, order, args, np.random.default_rng([args.seed, case.num]))
        except Exception as e:  # noqa: BLE001 - record and go on with the next case
            row = {"set": case.set_name, "num": case.num, "contraction": case.contraction, "order": order,
                   "int8_ok": False, "note": f"{type(e).__name__}: {e}"[:300]}
        row.update(commit=args.commit, command=args.command)
        rows.append(row)
        if gpu:
            import cupy

            cupy.get_default_memory_pool().free_all_blocks()
    path = _write(rows, os.path.join(args.out, f"tccg_i8_{'gpu' if gpu else 'cpu'}_{stamp}.csv"))
    print(_table(rows, gpu))
    print(f"CSV: {path}")
    for line in summary(rows):
        print(line)
    bad = [r for r in rows if not r.get("int8_ok")]
    if bad:
        print(f"{len(bad)} FAILED: " + ", ".join(f"{r['set']} #{r['num']} {r['order']}" for r in bad), file=sys.stderr)
    return 1 if bad else 0
