"""`gettpy.tune`: autotune a binary einsum on its real operands and remember the winner.

    trials = gettpy.tune("abcd,cdij->abij", a, b, samples=48, top=8)

Every measured candidate's result is checked against a float64 reference before it is timed (CUDA-graph
replays between CUDA events on the GPU, the host clock on the CPU executor). The best verified candidate goes into the
tuning database of the device (`TuningDB`, under ``GETTPY_CACHE_DIR``) and into this process's tuned
table, which the plan cache consults: later `einsum` calls with the same (canonical) problem run the
tuned plan. With ``GETTPY_TUNE=1`` the plan cache also reads earlier processes' entries from the
database of the current device.

Without a GPU, numpy operands are tuned on the CPU executor (its plans' partitions and tiles, timed on the host
clock). Only real floating-point contractions are tuned (float16, bfloat16, float32 and float64 operands: a
float32 or float64 compute type), on either device: the design space is the tiles of the GETT kernel's
floating-point path (`plan.tiles.kernel_spec` takes float32 and float64 compute types only), and integer, bool and
complex contractions run on kernels it does not describe (backends/gpu_exact.py, backends/gpu_complex.py); tuning
those raises a DtypeError before any candidate is run.
"""
from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from . import backends
from .dtypes import accumulate_type, type_name
from .errors import DtypeError, GettpyError, OptionError
from .graphs import replay_ms
from .plan.cache import clear_plan_cache, executor_target, record_tuned
from .plan.tuner import Candidate, Trial, schedule_of
from .plan.tuner import tune as search
from .plan.tuning_db import TuningDB, device_identity, problem_key
from .semantics import check_count


def tune(subscripts: str, a: Any, b: Any, out: Any = None, dtype: DTypeLike | None = None,
         ops: Sequence[Any] | None = None, op_out: Any = None, samples: int = 48, top: int = 8, reps: int = 5,
         seed: int = 0) -> list[Trial]:
    """Autotune ``einsum(subscripts, a, b, out=out, dtype=dtype, ops=ops, op_out=op_out)``.

    Returns the measured trials, best first. The reference every candidate must match is the result
    of the heuristic plan, itself checked against a float64 numpy einsum when there are no ops.

    Raises:
        DtypeError: integer, bool or complex contractions, with or without a GPU (the tuner's design space is
            the floating-point kernel's tiles; those contractions keep their heuristic plan).
        GettpyError: subscripts that are not one binary contraction, or a heuristic result that does not match
            numpy.
        ArgumentError, OptionError: samples, top, reps or seed not an integer, or under 1 (seed any integer); an
            `out` that shares memory with a or b (each of the tuner's runs would read the one before's result).
    """
    import importlib

    ein = importlib.import_module("gettpy.einsum")
    for name, v, least in (("samples", samples, 1), ("top", top, 1), ("reps", reps, 1), ("seed", seed, None)):
        check_count(f"tune: {name}", v, least)
    # scalars and nested lists are taken as einsum takes them (numpy arrays)
    a, b = (x if hasattr(x, "shape") and hasattr(x, "dtype") else np.asarray(x) for x in (a, b))
    if out is not None and hasattr(out, "shape"):
        xp = backends.xp_of(backends.array_module_name(out))
        for name, x in (("a", a), ("b", b)):
            if backends.array_module_name(x) == backends.array_module_name(out) and xp.may_share_memory(out, x):
                raise OptionError(f"tune: out shares memory with {name}: the tuner runs the contraction many times, "
                                  f"and each run would read what the one before wrote; give out its own array")
    ein.clear_program_cache()
    kw = {"out": out, "dtype": dtype, "ops": ops, "op_out": op_out}
    result = ein.einsum(subscripts, a, b, **kw)  # the heuristic plan; its result is the reference
    backend = backends.array_module_name(result)
    prog = ein._program((subscripts, a, b), [a, b], out, dtype, True, ops, op_out, backend, "safe")
    if len(prog.steps) != 1 or prog.steps[0].b < 0:
        raise GettpyError(f"tune: {subscripts!r} is not a single binary contraction")
    problem = prog.steps[0].plan.problem  # canonical
    # (here too, not only in tune_problem: before the float64 reference, which has no meaning for bool or complex)
    _check_tunable(problem)
    ref = (result.get() if backend == "cupy" else np.array(result)).astype(np.float64)
    if ops is None and op_out is None:
        # (the float64 reference on the device: a CPU einsum of a large compute-bound contraction takes minutes)
        if backend == "cupy":
            xp = backends.xp_of(backend)
            exact = xp.einsum(subscripts, *(x.astype(np.float64) for x in (a, b))).get()
        else:
            exact = np.einsum(subscripts, *(np.asarray(x, dtype=np.float64) for x in (a, b)), optimize=True)
        if not np.allclose(ref, exact, rtol=5e-2, atol=5e-2 * (float(np.max(np.abs(exact), initial=0)) or 1)):
            raise GettpyError("tune: the heuristic plan's result does not match numpy; not tuning")
    trials = tune_problem(problem, backend, a, b, result, samples=samples, top=top, reps=reps, seed=seed)
    if trials[0].ok:
        ein.clear_program_cache()
    return trials


#: the compute types the tuner's design space describes (the GETT kernel's floating-point tiles)
TUNABLE_COMPUTE = ("f32", "f64")


def _check_tunable(problem) -> None:
    """A DtypeError unless `problem` computes in a type the tuner's design space covers (`TUNABLE_COMPUTE`): the
    same answer with or without a GPU, since integer, bool and complex contractions have no tiles to tune on
    either."""
    compute = accumulate_type(problem.compute)
    if compute not in TUNABLE_COMPUTE:
        kind = "bool" if compute == "b1" else "integer" if compute[0] in "iu" else "complex"
        raise DtypeError(f"tune: {kind} contractions are not tuned (A {type_name(problem.a.dtype)}, B "
                         f"{type_name(problem.b.dtype)}): the tuner searches the tiles of the kernel's floating-point "
                         f"path (float16, bfloat16, float32 and float64 operands), with or without a GPU; {kind} "
                         f"contractions keep their heuristic plan")


def _device_ms(call, reps: int) -> float:
    """Median GPU ms of `call` (cupy work): back-to-back calls filling ~0.5 ms, captured into one CUDA graph
    on a non-blocking stream and replayed `reps` times between CUDA events, as `python -m tccg` times the
    plan the tuner picks; eager launches between the events where capture fails. Timed eagerly, a
    schedule's host time (a pack's launch in Python) could hide its GPU time: timed eagerly on the H100, the tuner
    picked plans for small write-bound contractions (ccsd_t shapes) that ran twice as slow as the heuristic's."""
    # (~0.5 ms of calls a replay, at most 50)
    return replay_ms([call], lambda est: max(1, min(50, int(0.5 / max(est, 1e-3)))), reps, warmup=1)[0]


def tune_problem(problem, backend: str, a, b, result, samples: int = 48, top: int = 8, reps: int = 5,
                 seed: int = 0) -> list[Trial]:
    """Tune a planned binary problem on its operands `a`, `b` (the problem's A and B); `result` is the
    heuristic plan's output (the reference, and the layout every candidate writes). The winner is
    recorded in the device's tuning DB and the in-process table. Returns the trials, best first.

    Raises:
        DtypeError: an integer, bool or complex problem (see `_check_tunable`), before any candidate runs.
    """
    _check_tunable(problem)
    xp = backends.xp_of(backend)
    target = executor_target(backend)  # (what einsum plans this backend's contractions for)
    ref = (result.get() if backend == "cupy" else np.array(result)).astype(np.float64)
    tol = {"f16": 1e-2, "bf16": 5e-2, "f32": 1e-4, "f64": 1e-10}.get(problem.d.dtype, 1e-4)
    scale = float(np.max(np.abs(ref), initial=0.0)) or 1.0

    def run(c: Candidate) -> tuple[float, bool]:
        sched = schedule_of(problem, c, target)
        d = xp.empty_like(result)  # the output layout the problem was planned for
        d.fill(np.nan)
        backends.execute(backend, sched, a, b, None, d, 1.0, 0.0)
        got = d.get() if backend == "cupy" else d
        if not float(np.max(np.abs(got.astype(np.float64) - ref), initial=0.0)) <= tol * scale:
            return 0.0, False
        if backend == "cupy":
            return _device_ms(lambda: backends.execute(backend, sched, a, b, None, d, 1.0, 0.0), reps), True
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            backends.execute(backend, sched, a, b, None, d, 1.0, 0.0)
            times.append(1e3 * (time.perf_counter() - t0))
        return statistics.median(times), True

    def prepare(cands):  # compile every measured kernel in parallel before timing (GPU only)
        if backend != "cupy":
            return
        from .kernels.build import prebuild
        from .plan.tiles import kernel_spec
        specs = []
        for c in cands:
            try:
                s = schedule_of(problem, c, target)
                if not s.own_kernel:  # (a direct or long-K schedule's kernel is not the core's; it compiles on
                    #                       its first run)
                    specs.append(kernel_spec(s.core, False, sm_count=target.sm_count, wgmma=target.wgmma))
            except Exception:  # noqa: BLE001 - run() records the failure
                pass
        prebuild(specs)

    trials = search(problem, run, samples=samples, top=top, seed=seed, prepare=prepare, target=target)
    best = trials[0]
    if best.ok:
        name, cc = device_identity(backend)
        TuningDB(name, cc).record(problem_key(problem), best.candidate.to_dict(), best.measured_ms)
        record_tuned(problem, best.candidate)
        clear_plan_cache()
    return trials
