"""`python -m tccg`: the three modes of the benchmark, on the sets of sets.py (``--set tccg|perturbed|real|all``).

* no GPU: the reduced-size CPU verification pass (gettpy's CPU executor vs numpy.einsum in float64);
* ``--compile-only --arch sm_90``: compile every selected plan's kernel with NVRTC (no GPU needed);
* GPU: verify gettpy against a float64 reference, time it and its peers (timing.py, peers.py),
  write CSV and plots, print the table and the geomean summary (last).
"""
from __future__ import annotations

import argparse
import datetime as _dt
import os
import sys
import traceback

from . import peers, report, sets
from .suite import Case, parse_cases

DEFAULT_OUT = "tccg_out"
CPU_MAX_ELEMS = 1 << 15

#: above this many float64 elements (A, B and C together) or this many flops, the float64 reference is computed on
#: a sampled block of the output only (see `Reference`)
REF_FULL_ELEMS = 300_000_000
REF_FULL_FLOPS = 4e12


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m tccg",
        description="Tensor-contraction benchmark: TCCG's 48 contractions, the same with perturbed extents, and "
                    "contractions of real codes; gettpy vs cuTENSOR, torch.einsum and cupy.einsum. "
                    "Without a CUDA GPU it runs a reduced-size verification pass on the CPU.")
    p.add_argument("--set", default="tccg",
                   help="benchmark set(s): tccg (TCCG's 48), perturbed (the 48 with extents within +-15%%), real "
                        "(contractions of real codes), or all; comma list (default tccg)")
    p.add_argument("--seed", type=int, default=sets.DEFAULT_SEED,
                   help=f"seed of the perturbed and real sets (default {sets.DEFAULT_SEED})")
    p.add_argument("--cases", default="all",
                   help="case numbers and ranges within each set, e.g. 1,7,20-30 (default: all)")
    p.add_argument("--family", default=None,
                   help="only the cases of these TCCG groups / real-code families, comma list (e.g. long_k,complex)")
    p.add_argument("--list", action="store_true", help="print the selected cases and their extents, run nothing")
    p.add_argument("--dtype", action="append", default=None,
                   help="f16 (fp16 in/out, fp32 accumulate), f16f32 (fp16 in, fp32 out), bf16, f32, f64, c64, c128; "
                        "repeatable or comma list (default f16); the complex cases of the real set run only in "
                        "their own c64 or c128. i8 (alone): int8 inputs into an int32 output timed against the same "
                        "contractions in f16 (tccg/int8.py)")
    p.add_argument("--order", default="C,F", type=str.upper,
                   help="memory order(s) of every tensor: F = column-major (TCCG's convention), C = row-major "
                        "(numpy's); comma list (default C,F: both)")
    p.add_argument("--ops", action="append", default=None,
                   help="none, relu, leaky_relu: unary op applied to A, B and the result, C = op(op(A) op(B)) "
                        "(seed Sec. IV-D); repeatable or comma list (default none); with several, a fused-ops plot")
    p.add_argument("--tune", action="store_true",
                   help="time the heuristic plan, autotune (gettpy.tune), then time the tuned plan")
    p.add_argument("--no-peers", action="store_true", help="time gettpy only (no cupy, torch or cuTENSOR)")
    p.add_argument("--tune-samples", type=int, default=24, help="--tune: random candidates per contraction")
    p.add_argument("--tune-top", type=int, default=6, help="--tune: candidates compiled and timed")
    p.add_argument("--pad", action="store_true",
                   help="padding study: gettpy on unpadded vs tile-padded tensors, plus the pad/unpad cost")
    p.add_argument("--out", default=DEFAULT_OUT,
                   help=f"output directory for CSV and plots (default ./{DEFAULT_OUT}, git-ignored)")
    p.add_argument("--compile-only", action="store_true",
                   help="compile the kernels of the selected cases with NVRTC for --arch and print the report")
    p.add_argument("--arch", default="sm_90", help="target architecture for --compile-only (default sm_90)")
    p.add_argument("--reps", type=int, default=20, help="timed graph replays per measurement (median; default 20)")
    p.add_argument("--cpu", action="store_true", help="run the CPU verification pass even when a GPU is present")
    p.add_argument("--max-elems", type=int, default=CPU_MAX_ELEMS,
                   help=f"CPU pass: largest tensor size after reduction (default {CPU_MAX_ELEMS})")
    p.add_argument("--no-plots", action="store_true", help="do not write PNG plots")
    p.add_argument("--interleave", action="store_true",
                   help="after each contraction's peers, time gettpy, torch.einsum and cuTENSOR's default algorithm "
                        "again with their graph replays taken in turn (columns *_ms2), so that all three run through "
                        "the same stretch of the GPU's clock history; the summary adds that comparison")
    return p


def _stamp() -> str:
    return _dt.datetime.now().strftime("%Y%m%d_%H%M%S")


def _progress(items, desc: str):
    try:
        from tqdm import tqdm

        return tqdm(items, desc=desc, unit="case", file=sys.stderr, dynamic_ncols=True)
    except ImportError:  # pragma: no cover - tqdm is a dependency
        return items


def _tag(args) -> str:
    """The run's CSV name part: sets, dtypes, orders, ops."""
    return f"{'-'.join(args.sets)}_{'-'.join(args.dtypes)}_{''.join(args.orders)}_{'-'.join(args.ops)}"


def commit_of(root: str | None = None) -> str:
    """$TCCG_COMMIT where set (a copy of the tree without its .git, as on a remote GPU machine), else the checkout's
    ``git describe --always --dirty``, else "unknown"."""
    import subprocess

    env = os.environ.get("TCCG_COMMIT")
    if env:
        return env
    root = root or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        r = subprocess.run(["git", "-C", root, "describe", "--always", "--dirty", "--abbrev=12"],
                           capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else "unknown"


def _stamp_row(row: dict, args) -> dict:
    """The run's identity on every row: seed, commit and the exact command (so merged CSVs keep them)."""
    row.update(seed=args.seed, commit=args.commit, command=args.command)
    return row


def _err_text(e: BaseException) -> str:
    msg = f"{type(e).__name__}: {e}".replace("\n", " | ")
    return msg[:500]


# -- CPU pass -------------------------------------------------------------------------------------------

def _np_dtypes(dtype: str):
    """(input numpy dtype, gettpy dtype= argument, output numpy dtype) for the CPU pass."""
    import numpy as np

    if dtype == "bf16":
        import ml_dtypes  # noqa: F401 - raises ImportError when missing

        bf = np.dtype("bfloat16")
        return bf, None, bf
    return {"f16": (np.float16, None, np.float16), "f16f32": (np.float16, np.float32, np.float32),
            "f32": (np.float32, None, np.float32), "f64": (np.float64, None, np.float64),
            "c64": (np.complex64, None, np.complex64), "c128": (np.complex128, None, np.complex128)}[dtype]


def _uniform(rng, shape, dtype: str):
    """Values uniform in [-1, 1) (real and imaginary parts for complex dtypes), as float64 / complex128."""
    x = rng.uniform(-1.0, 1.0, size=shape)
    if dtype.startswith("c"):
        x = x + 1j * rng.uniform(-1.0, 1.0, size=shape)
    return x


def selected(args, set_name: str) -> tuple[Case, ...]:
    """The cases of `set_name` that --cases and --family select (a family need only be in one of the run's sets)."""
    known = {c.group for s in args.sets for c in sets.cases_of(s, args.seed)}
    return sets.select(parse_cases(args.cases, sets.cases_of(set_name, args.seed)), args.family, known)


def items_of(args) -> list[tuple[Case, str, str, str]]:
    """(case, dtype, order, op) for every selected set, case, dtype its case runs in, order and op."""
    out = []
    for set_name in args.sets:
        out += [(c, d, o, op) for c in selected(args, set_name) for d in args.dtypes if c.runs_in(d)
                for o in args.orders for op in args.ops]
    return out


def skipped_note(args) -> str | None:
    """A line naming the selected cases that run in no requested dtype (the complex ones without c64/c128)."""
    missed = []
    for set_name in args.sets:
        missed += [c for c in selected(args, set_name) if not any(c.runs_in(d) for d in args.dtypes)]
    if not missed:
        return None
    want = sorted({d for c in missed for d in c.dtypes})
    return (f"{len(missed)} selected case(s) run only in {', '.join(want)}, not requested: add --dtype "
            f"{','.join(want)} to run them")


def cpu_operands(case: Case, dtype: str, order: str, rng):
    """(A, B, out) numpy arrays of `case` for the CPU pass: A and B uniform in [-1, 1) (both parts for complex),
    all three packed in memory order `order` (C: last index fastest, F: first index fastest)."""
    import numpy as np

    in_dt, _, out_dt = _np_dtypes(dtype)
    sa, sb, sc = case.shapes()
    a = np.asarray(_uniform(rng, sa, dtype).astype(in_dt), order=order)
    b = np.asarray(_uniform(rng, sb, dtype).astype(in_dt), order=order)
    return a, b, np.empty(sc, dtype=out_dt, order=order)


def cpu_case(case: Case, dtype: str, order: str, op: str, rng, max_elems: int = CPU_MAX_ELEMS) -> dict:
    """Verify gettpy.einsum on numpy arrays at reduced extents against numpy.einsum in float64 (complex128),
    every tensor (the output included) in memory order `order`."""
    import numpy as np

    import gettpy

    small = case.reduced(max_elems=max_elems)
    row = report.new_row(small, dtype, order, op, "cpu")
    try:
        _, kw_dt, _ = _np_dtypes(dtype)
    except ImportError:
        row["note"] = "bf16 on the CPU needs ml_dtypes: skipped"
        return row
    a, b, out = cpu_operands(small, dtype, order, rng)
    subs = small.einsum_subscripts()
    kw = {} if kw_dt is None else {"dtype": kw_dt}
    if op != "none":
        g = peers.gettpy_op(op)
        kw.update(ops=[g, g], op_out=g)
    wide = np.complex128 if dtype.startswith("c") else np.float64
    try:
        got = gettpy.einsum(subs, a, b, out=out, **kw)
        if got is not out:
            raise AssertionError("gettpy.einsum did not return its out= array")
        ref = peers.numpy_op(op, np.einsum(subs, peers.numpy_op(op, a.astype(wide)),
                                           peers.numpy_op(op, b.astype(wide))))
        row["max_rel_err"] = report.max_rel_err(np.asarray(got).astype(wide), ref)
        row["ok"] = row["max_rel_err"] <= row["tol"]
    except Exception as e:  # noqa: BLE001 - one case's failure must not stop the pass
        row["error"] = _err_text(e)
        row["ok"] = False
    return row


def run_cpu(args) -> int:
    import numpy as np

    print("no CUDA GPU found: running the reduced-size CPU verification pass" if not args.cpu
          else "--cpu: running the reduced-size CPU verification pass")
    print(f"  gettpy's CPU executor vs numpy.einsum in float64, largest tensor <= {args.max_elems} elements, "
          f"sets {','.join(args.sets)}, orders {','.join(args.orders)}, ops {','.join(args.ops)}")
    rows = []
    for case, dt, order, op in _progress(items_of(args), "tccg cpu"):
        rng = np.random.default_rng([args.seed, case.num, sets.SETS.index(case.set_name)])
        row = cpu_case(case, dt, order, op, rng, args.max_elems)
        rows.append(_stamp_row(row, args))
    path = report.write_csv(rows, os.path.join(args.out, f"tccg_cpu_{_tag(args)}_{_stamp()}.csv"))
    print(report.format_table(rows, gpu=False))
    bad = [r for r in rows if r.get("ok") is False]
    skipped = [r for r in rows if r.get("ok") is None]
    print(f"CSV: {path}")
    print(f"CPU verification: {len(rows) - len(bad) - len(skipped)}/{len(rows)} passed"
          + (f", {len(skipped)} skipped" if skipped else "")
          + (f", {len(bad)} FAILED: " + ", ".join(f"{r['set']} #{r['num']} {r['dtype']} {r['order']}" for r in bad)
             if bad else ""))
    note = skipped_note(args)
    if note:
        print(note)
    return 1 if bad else 0


# -- compile only ---------------------------------------------------------------------------------------

def _strides(shape, order: str) -> tuple[int, ...]:
    """Packed element strides: F = first index fastest (TCCG), C = last index fastest."""
    dims = range(len(shape)) if order == "F" else reversed(range(len(shape)))
    st, acc = [0] * len(shape), 1
    for d in dims:
        st[d] = acc
        acc *= shape[d]
    return tuple(st)


def case_problem(case, din: str, dout: str, order: str = "F", op=None):
    """The ContractionProblem einsum poses for a TCCG case (packed `order` tensors, beta = 0, `op` on A,
    B and the result)."""
    from gettpy.ops import as_op
    from gettpy.plan.problem import ContractionProblem, TensorInfo

    g = as_op(op)
    (ma, mb, mc), (sa, sb, sc) = case.modes, case.shapes()
    ta = TensorInfo("A", tuple(ma), _strides(sa, order), din, op=g)
    tb = TensorInfo("B", tuple(mb), _strides(sb, order), din, op=g)
    td = TensorInfo("D", tuple(mc), _strides(sc, order), dout, op=g)
    return ContractionProblem(ta, tb, None, td, tuple(sorted(case.extents.items())))


#: (input, output) gettpy dtype of each real benchmark dtype, for --compile-only
_IN_OUT = {"f16": ("f16", "f16"), "f16f32": ("f16", "f32"), "bf16": ("bf16", "bf16"), "f32": ("f32", "f32"),
           "f64": ("f64", "f64")}


def compile_items(cases, dtypes, order: str, op: str = "none"):
    """(label, KernelSpec) per (case, dtype) at full size: the kernel einsum would launch (beta = 0, after
    the schedule's packs and split-K), planned without a GPU for the default target (the message of the error in
    place of the spec where the core cannot be lowered). Complex dtypes are left out (their plans run
    through the complex backend, not one core kernel), and so are schedules on the direct kernel (its sources are
    compiled by tests/compile/test_compile_direct.py)."""
    from gettpy.plan.schedule import make_schedule
    from gettpy.plan.tiles import kernel_spec

    items = []
    for case in cases:
        for dt in dtypes:
            if dt not in _IN_OUT or not case.runs_in(dt):
                continue
            problem = case_problem(case, *_IN_OUT[dt], order, peers.gettpy_op(op))
            prefix = "" if case.set_name == "tccg" else f"{case.set_name[0]}"
            label = f"{prefix}{case.num:02d} {case.contraction} {dt} {order}"
            s = make_schedule(problem)
            if not s.own_kernel:
                try:
                    items.append((label, kernel_spec(s.core, False)))
                except Exception as e:  # noqa: BLE001 - reported as the row's error
                    items.append((label, f"{type(e).__name__}: {e}"))
    return items


def run_compile_only(args) -> int:
    """Compile every selected plan's kernel for --arch with NVRTC (gettpy.kernels.report) and print the
    ptxas report; no GPU needed."""
    try:
        from gettpy.kernels.report import compile_suite
    except ImportError as e:
        print(f"--compile-only: gettpy.kernels.report.compile_suite is not available ({e}); nothing compiled",
              file=sys.stderr)
        return 2
    items = []
    for set_name in args.sets:
        for order in args.orders:
            items += compile_items(selected(args, set_name), args.dtypes, order, args.ops[0])
    rows = compile_suite(items, arch=args.arch)
    try:
        from gettpy.kernels.report import format_rows

        print(format_rows(rows))
    except ImportError:
        for r in rows:
            print(r)
    return 1 if any(r.get("error") for r in rows) else 0


# -- GPU run --------------------------------------------------------------------------------------------

class _Gpu:
    """Per-run GPU state: device name, L2 size, ceilings, which peers work."""

    def __init__(self, dtypes, log=print):
        import cupy

        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        name = props["name"]
        self.device = name.decode() if isinstance(name, bytes) else str(name)
        self.l2 = int(props.get("l2CacheSize", 50 << 20))
        self.torch_reason = peers.torch_status()
        self.cutensor_reason = peers.cutensor_status()
        self.algos = peers.cutensor_algos() if self.cutensor_reason is None else []
        log(f"device: {self.device}, L2 {self.l2 >> 20} MiB, cupy {cupy.__version__}")
        log("torch: " + ("ok" if self.torch_reason is None else f"MISSING ({self.torch_reason}): column empty"))
        log("cuTENSOR: " + (f"ok ({peers.cutensor_version()}, algos {[a for a, _ in self.algos]})"
                            if self.cutensor_reason is None else f"MISSING ({self.cutensor_reason}): column empty"))
        from . import timing

        kinds = [report.PEAK_KIND[d] for d in dtypes]
        if "bf16" in kinds and self.torch_reason is not None:
            kinds = ["f16" if k == "bf16" else k for k in kinds]
        self.ceil = timing.measure_ceilings(kinds, log=log)
        if "bf16" in report.PEAK_KIND.values() and "bf16" not in self.ceil["peak"] and "f16" in self.ceil["peak"]:
            self.ceil["peak"]["bf16"] = self.ceil["peak"]["f16"]


def _rand_cupy(shape, dtype: str, order: str):
    import cupy

    dt = {"f16": cupy.float16, "f16f32": cupy.float16, "f32": cupy.float32, "f64": cupy.float64,
          "c64": cupy.complex64, "c128": cupy.complex128}[dtype]
    wide = cupy.float64 if dtype in ("f64", "c128") else cupy.float32
    x = cupy.random.uniform(-1.0, 1.0, size=shape, dtype=wide)
    if dtype.startswith("c"):
        x = x + 1j * cupy.random.uniform(-1.0, 1.0, size=shape, dtype=wide)
    return cupy.asarray(x.astype(dt), order=order)


def _rand_torch_bf16(shape, order: str):
    import torch

    if order == "F":
        t = torch.rand(tuple(reversed(shape)), device="cuda", dtype=torch.float32).permute(
            *reversed(range(len(shape))))
    else:
        t = torch.rand(tuple(shape), device="cuda", dtype=torch.float32)
    return (t * 2 - 1).to(torch.bfloat16)


#: the output dtype (a cupy dtype name) of each benchmark dtype but bf16, whose outputs are torch tensors
OUT_DTYPES = {"f16": "float16", "f16f32": "float32", "f32": "float32", "f64": "float64", "c64": "complex64",
              "c128": "complex128"}


def _empty_out(shape, dtype: str, order: str):
    if dtype == "bf16":
        import torch

        if order == "F":
            return torch.empty(tuple(reversed(shape)), device="cuda", dtype=torch.bfloat16).permute(
                *reversed(range(len(shape))))
        return torch.empty(tuple(shape), device="cuda", dtype=torch.bfloat16)
    import cupy

    return cupy.empty(shape, dtype=OUT_DTYPES[dtype], order=order)


def _copy(x):
    if type(x).__module__.split(".")[0] == "torch":
        return x.clone()
    return x.copy(order="K")


def _pad_plan(case: Case, tiles=(128, 128, 32)) -> dict[str, int]:
    """Padded extents: in each GEMM dimension (M, N, K) pad its first mode (as written in A, or B for N)
    so that the dimension's product becomes a multiple of its tile."""
    import math

    a, b, c = case.modes
    ext = dict(case.extents)
    groups = ([m for m in a if m in c], [m for m in b if m in c and m not in a],
              [m for m in a if m in b and m not in c])
    for modes, tile in zip(groups, tiles, strict=True):
        if not modes:
            continue
        rest = math.prod(ext[m] for m in modes[1:])
        step = tile // math.gcd(rest, tile)
        ext[modes[0]] = -(-ext[modes[0]] // step) * step
    return ext


def _pad_study(case, subs, sets, outs, dtype, order, op, ref, row, reps, notes):
    """Time gettpy on tensors padded to tile multiples (and the pad/unpad copies); fill the pad columns."""
    import cupy

    import gettpy

    from . import timing

    if dtype == "bf16":
        notes.append("pad study skipped for bf16")
        return
    pext = _pad_plan(case)
    pcase = case.with_extents(pext)
    a0, b0 = sets[0]
    pa, pb, pc = (cupy.zeros(s, dtype=x.dtype, order=order) for s, x in zip(pcase.shapes(), (a0, b0, outs[0]),
                                                                            strict=True))
    sl = [tuple(slice(0, e) for e in s) for s in case.shapes()]

    def pad_calls():
        pa[sl[0]] = a0
        pb[sl[1]] = b0

    def unpad_call():
        outs[0][...] = pc[sl[2]]

    pad_calls()
    gettpy.einsum(subs, pa, pb, out=pc, **_gettpy_kw(dtype, op))
    err = ref.err(pc[sl[2]])
    if err > row["tol"]:
        notes.append(f"pad study: padded result wrong (rel err {err:.2e})")
        return
    t_pad, _, _ = timing.time_cupy([pad_calls], reps=reps)
    t_unpad, _, _ = timing.time_cupy([unpad_call], reps=reps)
    call = peers.gettpy_call(subs, pa, pb, pc, dtype, op)
    t, _, _ = timing.time_cupy([call], reps=reps)
    row.update(pad_gettpy_ms=t, pad_ms=t_pad, unpad_ms=t_unpad)
    row["padded_extents"] = " ".join(f"{m}={e}" for m, e in sorted(pext.items()))
    notes.append("pad study: one input set, pad/unpad = cupy slice copies into/out of zeroed buffers")


def _gettpy_kw(dtype, op):
    import numpy as np

    kw = {"dtype": np.float32} if dtype == "f16f32" else {}
    if op != "none":
        g = peers.gettpy_op(op)
        kw.update(ops=[g, g], op_out=g)
    return kw


def gpu_case(gpu: _Gpu, case: Case, dtype: str, order: str, op: str, args) -> dict:
    """Verify and time one (case, dtype): gettpy, then cupy.einsum, torch.einsum, cuTENSOR."""
    import cupy

    import gettpy

    from . import timing

    row = report.new_row(case, dtype, order, op, gpu.device)
    notes = []
    peak = gpu.ceil["peak"].get(report.PEAK_KIND[dtype]) or gpu.ceil["peak"].get("f16")
    row["floor_ms"] = report.floor_ms(row["bytes"], row["flops"], gpu.ceil["bw"], peak)
    row["bound"] = report.bound(row["bytes"], row["flops"], gpu.ceil["bw"], peak)
    if dtype == "bf16" and gpu.torch_reason is not None:
        row["note"] = "bf16 needs torch to create tensors: skipped"
        return row
    subs = case.einsum_subscripts()
    sa, sb, sc = case.shapes()
    free = cupy.cuda.runtime.memGetInfo()[0]
    nsets = timing.n_input_sets(row["bytes"], gpu.l2, budget_bytes=int(free * 0.3))
    row["n_sets"] = nsets
    if dtype == "bf16":
        sets = [(_rand_torch_bf16(sa, order), _rand_torch_bf16(sb, order)) for _ in range(nsets)]
    else:
        sets = [(_rand_cupy(sa, dtype, order), _rand_cupy(sb, dtype, order)) for _ in range(nsets)]
    outs = [_empty_out(sc, dtype, order) for _ in range(nsets)]

    # (1) reference in float64 (complex128) on set 0, whole or on a sampled output block, then verify gettpy once
    import numpy as np

    from . import verify

    index = None
    if verify.needs_sampling(case, REF_FULL_ELEMS, REF_FULL_FLOPS):
        index = verify.sample_index(case, 1 << 16, np.random.default_rng(case.num))
    ref = verify.Reference(case, sets[0][0], sets[0][1], lambda x: peers.numpy_op(op, x), dtype.startswith("c"),
                           index)
    if ref.note:
        notes.append(ref.note)

    def gettpy_verified_time():
        calls = [peers.gettpy_call(subs, a, b, c, dtype, op) for (a, b), c in zip(sets, outs, strict=True)]
        outs[0].fill(float("nan"))
        calls[0]()
        err = ref.err(outs[0])
        t, how, _ = timing.time_cupy(calls, reps=args.reps)
        return err, t, how

    # (2) verify, then time gettpy (it does not modify its inputs); with --tune: the heuristic plan
    #     first, then the tuned one (gettpy_ms), both verified
    row["max_rel_err"], row["gettpy_ms"], row["gettpy_how"] = gettpy_verified_time()
    if args.tune:
        import time as _time

        t0 = _time.perf_counter()
        trials = gettpy.tune(subs, sets[0][0], sets[0][1], out=outs[0], samples=args.tune_samples,
                             top=args.tune_top, **_gettpy_kw(dtype, op))
        row["tune_s"] = _time.perf_counter() - t0
        row["heuristic_ms"] = row["gettpy_ms"]
        err, t, how = gettpy_verified_time()
        best = trials[0].candidate
        bt, p = best.tile, best.part
        if bt is None:
            tile = "heuristic tile"
        else:
            inner = f"warp {bt.wm}x{bt.wn}" if bt.mma else f"thread {bt.tm}x{bt.tn}"
            tile = f"{bt.bm}x{bt.bn}x{bt.bk}/{bt.stages} {inner}"
        notes.append(f"tuned: {sum(1 for x in trials if x.ok)} candidates verified; best {tile}, "
                     f"m={''.join(p.m)} n={''.join(p.n)} k={''.join(p.k)} swapped={p.swapped} "
                     f"split={p.split_m},{p.split_n}")
        row["max_rel_err"] = max(row["max_rel_err"], err)
        row["gettpy_ms"], row["gettpy_how"] = t, how
    row["ok"] = row["max_rel_err"] <= row["tol"]
    if args.pad:
        try:
            _pad_study(case, subs, sets, outs, dtype, order, op, ref, row, args.reps, notes)
        except Exception as e:  # noqa: BLE001
            notes.append(f"pad study failed: {_err_text(e)}")

    # Peers apply ops in place: each is verified on fresh copies of the pristine set 0, then timed on
    # the input sets (whose values the in-place ops may change; that does not change the timing).
    a0, b0 = (_copy(x) for x in sets[0]) if op != "none" else sets[0]

    def verify(make):
        """Run the peer once on (copies of) set 0; returns its max relative error."""
        a, b = (_copy(a0), _copy(b0)) if op != "none" else (a0, b0)
        return ref.err(make(a, b, outs[0])())

    if args.no_peers:
        notes.append("peers not run (--no-peers)")
    else:
        _time_peers(gpu, case, subs, sets, outs, dtype, op, verify, row, notes, args)
        if args.interleave:
            _interleaved(gpu, case, subs, sets, outs, dtype, op, row, notes, args)
    row["note"] = "; ".join(n for n in [row.get("note") or "", *notes] if n)
    return report.derived(row)


def _time_gettpy_like_torch(subs, sets, r, dtype, op, verify, row, notes, args) -> None:
    """Where torch.einsum beat gettpy while writing a layout of its own choosing (`r`'s strides, not D's):
    verify and time gettpy writing that same layout (gettpy_torch_layout_ms), the like-for-like figure.
    Not for bf16 (its outputs are torch tensors, which `peers.empty_in_layout` does not make)."""
    from . import timing

    if dtype == "bf16":
        notes.append("gettpy in torch's layout: not timed for bf16")
        return
    outs = [peers.empty_in_layout(r, OUT_DTYPES[dtype]) for _ in sets]
    err = verify(lambda a, b, c: peers.gettpy_call(subs, a, b, outs[0], dtype, op))
    if not err <= row["tol"]:
        notes.append(f"gettpy in torch's layout: wrong result (rel err {err:.1e}), not timed")
        return
    calls = [peers.gettpy_call(subs, a, b, c, dtype, op) for (a, b), c in zip(sets, outs, strict=True)]
    row["gettpy_torch_layout_ms"], _, _ = timing.time_cupy(calls, reps=args.reps)
    notes.append("gettpy_torch_layout_ms: gettpy writing torch's result layout (torch_ms < gettpy_ms here)")


def _interleaved(gpu: _Gpu, case: Case, subs, sets, outs, dtype, op, row, notes, args) -> None:
    """--interleave: gettpy, torch.einsum and cuTENSOR's default algorithm, each that was timed (and verified) in the
    first pass, timed again with their replays in turn (timing.interleaved_ms): gettpy_ms2, torch_ms2,
    cutensor_ms2."""
    from . import timing

    algo = dict(gpu.algos).get("default")
    libs = [
        ("gettpy_ms2", "gettpy_ms", timing.cupy_runner, lambda a, b, c: peers.gettpy_call(subs, a, b, c, dtype, op)),
        ("torch_ms2", "torch_ms", timing.torch_runner, lambda a, b, c: peers.torch_call(subs, a, b, dtype, op)),
        ("cutensor_ms2", "cutensor_ms", timing.cupy_runner,
         lambda a, b, c: peers.cutensor_call(case.modes, a, b, c, dtype, op, algo)),
    ]
    keys, runners = [], []
    for key, first, runner, make in libs:
        if not report.usable(row.get(first)) or (key == "cutensor_ms2" and algo is None):
            continue
        try:
            runners.append(runner([make(a, b, c) for (a, b), c in zip(sets, outs, strict=True)]))
            keys.append(key)
        except Exception as e:  # noqa: BLE001
            notes.append(f"interleaved, {first[:-3]}: {_err_text(e)}")
    if len(runners) > 1:
        for key, ms in zip(keys, timing.interleaved_ms(runners, reps=args.reps), strict=True):
            row[key] = ms
        notes.append("interleaved: " + ", ".join(k[:-4] for k in keys) + " replayed in turn (*_ms2)")


def _time_peers(gpu: _Gpu, case: Case, subs, sets, outs, dtype, op, verify, row, notes, args) -> None:
    """Verify and time cupy.einsum, torch.einsum and cuTENSOR (every algorithm) into `row`."""
    from . import timing

    # (3) cupy.einsum
    try:
        row["cupy_err"] = verify(lambda a, b, c: peers.cupy_call(subs, a, b, dtype, op))
        calls = [peers.cupy_call(subs, a, b, dtype, op) for a, b in sets]
        row["cupy_ms"], how, _ = timing.time_cupy(calls, reps=args.reps)
        if how != "graph":
            notes.append(f"cupy timed by {how}")
    except peers.Unavailable as e:
        notes.append(f"cupy: {e}")
    except Exception as e:  # noqa: BLE001
        notes.append(f"cupy failed: {_err_text(e)}")

    # (4) torch.einsum
    if gpu.torch_reason is None:
        try:
            row["torch_err"] = verify(lambda a, b, c: peers.torch_call(subs, a, b, dtype, op))
            calls = [peers.torch_call(subs, a, b, dtype, op) for a, b in sets]
            row["torch_ms"], how, _ = timing.time_torch(calls, reps=args.reps)
            if how != "graph":
                notes.append(f"torch timed by {how}")
            r = peers.torch_call(subs, sets[0][0], sets[0][1], dtype, "none")()
            if not peers.same_layout(r, outs[0]):
                # (torch_ms times a result in the layout torch's GEMM produced; gettpy writes D's)
                calls = [peers.torch_call(subs, a, b, dtype, op, into=d) for (a, b), d in zip(sets, outs, strict=True)]
                row["torch_into_ms"], _, _ = timing.time_torch(calls, reps=args.reps)
                notes.append(f"torch.einsum's result has strides {tuple(r.stride())}, not D's: torch_into_ms adds "
                             f"its copy into D")
                if report.usable(row.get("gettpy_ms")) and row["torch_ms"] < row["gettpy_ms"]:
                    try:
                        _time_gettpy_like_torch(subs, sets, r, dtype, op, verify, row, notes, args)
                    except Exception as e:  # noqa: BLE001
                        notes.append(f"gettpy in torch's layout failed: {_err_text(e)}")
        except Exception as e:  # noqa: BLE001
            notes.append(f"torch failed: {_err_text(e)}")
    else:
        notes.append("torch missing")

    # (5) cuTENSOR: the default algorithm (its heuristic), then the others; best = min over all that run
    if gpu.cutensor_reason is None:
        best_t, best_name = None, None
        for name, algo in gpu.algos:
            try:
                err = verify(lambda a, b, c, algo=algo: peers.cutensor_call(case.modes, a, b, c, dtype, op, algo))
                if name == "default":
                    row["cutensor_err"] = err
                if err > row["tol"]:
                    notes.append(f"cuTENSOR {name}: wrong result (rel err {err:.1e})")
                    continue
                calls = [peers.cutensor_call(case.modes, a, b, c, dtype, op, algo)
                         for (a, b), c in zip(sets, outs, strict=True)]
                t, how, _ = timing.time_cupy(calls, reps=args.reps)
                if how != "graph":
                    notes.append(f"cuTENSOR {name} timed by {how}")
                if name == "default":
                    row["cutensor_ms"] = t
                if best_t is None or t < best_t:
                    best_t, best_name = t, name
            except peers.Unavailable as e:
                notes.append(f"cuTENSOR: {e}")
                break
            except Exception as e:  # noqa: BLE001 - an algorithm may not support this contraction
                if name == "default":
                    notes.append(f"cuTENSOR default failed: {_err_text(e)}")
        row["cutensor_best_ms"], row["cutensor_best_algo"] = best_t, best_name
    else:
        notes.append("cuTENSOR missing")


def run_gpu(args) -> int:
    import time

    import cupy

    os.makedirs(args.out, exist_ok=True)
    gpu = _Gpu(args.dtypes)
    rows = []
    stamp = _stamp()
    tag = _tag(args)
    csv_path = os.path.join(args.out, f"tccg_{tag}_{stamp}.csv")
    for case, dt, order, op in _progress(items_of(args), "tccg gpu"):
        t0 = time.perf_counter()
        try:
            row = gpu_case(gpu, case, dt, order, op, args)
        except Exception as e:  # noqa: BLE001 - record and go on with the next case
            row = report.new_row(case, dt, order, op, gpu.device)
            row["error"] = _err_text(e)
            row["ok"] = False
            if os.environ.get("TCCG_TRACEBACK"):
                traceback.print_exc()
        row["wall_s"] = time.perf_counter() - t0
        rows.append(_stamp_row(row, args))
        report.write_csv(rows, csv_path)  # after every case: a run cut short keeps what it measured
        cupy.get_default_memory_pool().free_all_blocks()
    path = report.write_csv(rows, csv_path)
    print(report.format_table(rows, gpu=True))
    print(f"CSV: {path}")
    if not args.no_plots:
        try:
            from . import plots

            for p in plots.plot_all(rows, args.out, tag=stamp):
                print(f"plot: {p}")
        except Exception as e:  # noqa: BLE001
            print(f"plots not written: {_err_text(e)}")
    note = skipped_note(args)
    if note:
        print(note)
    for line in report.summarize(rows):
        print(line)
    bad = [r for r in rows if r.get("ok") is False]
    return 1 if bad else 0


def parse_orders(spec: str) -> list[str]:
    """``"C,F"`` -> ``["C", "F"]``, validated."""
    out = []
    for o in spec.split(","):
        o = o.strip().upper()
        if not o:
            continue
        if o not in ("C", "F"):
            raise ValueError(f"--order: unknown memory order {o!r} (choose from C, F)")
        if o not in out:
            out.append(o)
    if not out:
        raise ValueError("--order: no order given")
    return out


def list_cases(args) -> int:
    """--list: the selected cases, one line each (set, number, family, contraction, extents, dtypes)."""
    for set_name in args.sets:
        for c in selected(args, set_name):
            dts = ",".join(c.dtypes) or "any real"
            print(f"{set_name:<9} {c.num:>3}  {c.group:<12} {c.contraction:<18} {c.extents_text():<60} {dts}")
    return 0


def main(argv=None) -> int:
    import shlex

    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(argv)
    try:
        from . import int8

        study_int8 = int8.wants_int8(args.dtype)
        args.sets = sets.parse_sets(args.set)
        args.dtypes = ["f16"] if study_int8 else report.parse_dtypes(args.dtype)
        args.orders = parse_orders(args.order)
        args.ops = report.parse_ops(args.ops)
        items_of(args)  # (validates --cases and --family against every selected set)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    args.command = "python -m tccg " + " ".join(shlex.quote(a) for a in argv)
    args.commit = commit_of()
    if args.list:
        return list_cases(args)
    if study_int8:  # (int8 beside f16 on the same cases: tccg/int8.py)
        return int8.run(args, lambda a: [(c, o) for c, _, o, _ in items_of(a)])
    if args.compile_only:
        return run_compile_only(args)
    if args.cpu or not peers.have_gpu():
        return run_cpu(args)
    return run_gpu(args)
