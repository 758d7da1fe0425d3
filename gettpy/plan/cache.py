"""The in-process plan cache: bounded (LRU), keyed by the canonicalised problem and the target device.

Two problems that differ only in the names of their modes share a plan (the plan's layouts do not
depend on names). `plan_cache_info()` and `clear_plan_cache()` expose the cache's counters.
"""
from __future__ import annotations

import os
import warnings
from functools import lru_cache

from .plan import Plan, make_plan
from .problem import ContractionProblem
from .schedule import Schedule, make_schedule
from .target import DEFAULT_TARGET, Target, device_target

PLAN_CACHE_SIZE = 1024


@lru_cache(maxsize=PLAN_CACHE_SIZE)
def _cached(canonical: ContractionProblem) -> Plan:
    return make_plan(canonical)


def cached_plan(problem: ContractionProblem) -> Plan:
    """The heuristic plan of `problem`, from the cache when an equivalent problem was planned before."""
    return _cached(problem.canonical())


#: tuned candidates of this process (gettpy.tune), keyed by canonical problem: an explicit cache
_TUNED: dict = {}


def record_tuned(problem: ContractionProblem, candidate) -> None:
    """Make the plan cache build `problem` (canonicalised) from an autotuner candidate from now on."""
    _TUNED[problem.canonical()] = candidate


def _executor(backend: str | None) -> str:
    """`backend`, or where it is not known yet (None) the one that will run: "cupy" where there is a GPU,
    else "numpy"."""
    if backend is not None:
        return backend
    try:
        import cupy

        return "cupy" if cupy.cuda.runtime.getDeviceCount() > 0 else "numpy"
    except Exception:  # noqa: BLE001 - no CuPy / no GPU: the CPU executor
        return "numpy"


#: (database path, problem key, why) of tuning records already refused with a warning
_REFUSED: set = set()


def _tuned_candidate(canonical: ContractionProblem, backend: str | None):
    """This process's tuned candidate of `canonical`, or with GETTPY_TUNE=1 the tuning database's record of
    it once checked against the problem (`tuner.candidate_from_record`); a record that fails the check is
    ignored with one warning and the heuristic plans instead."""
    hit = _TUNED.get(canonical)
    if hit is not None or os.environ.get("GETTPY_TUNE") != "1":
        return hit
    from .tuner import candidate_from_record
    from .tuning_db import TuningDB, device_identity, problem_key
    key = problem_key(canonical)
    db = TuningDB(*device_identity(_executor(backend)))
    entry = db.lookup(key)
    if entry is None:
        return None
    c, why = candidate_from_record(canonical, entry.get("config"), executor_target(backend))
    if c is None and (str(db.path), key, why) not in _REFUSED:
        _REFUSED.add((str(db.path), key, why))
        warnings.warn(f"gettpy: ignoring tuning record {key} in {db.path}: {why}; the heuristic plan is used",
                      stacklevel=2)
    return c


def _f64_cores(backend: str | None) -> bool:
    """Whether the executor's device runs f32 GEMMs on f64 tensor cores (make_schedule's f64_cores): an sm_90
    device (its Target's wgmma) for the GPU executor; the CPU executor plans as for the default target, as every
    other rule of the planner does."""
    return executor_target(backend).wgmma


def executor_target(backend: str | None) -> Target:
    """The Target the executor's plans are made for: the current GPU's for the GPU executor, the default
    target (as every other rule of the CPU executor's plans) otherwise."""
    return device_target() if _executor(backend) == "cupy" else DEFAULT_TARGET


def executor_stages(backend: str | None) -> bool:
    """Whether the executor's schedules carry stagings (packs, padding, split-K, folds, staged outputs): the
    GPU's, whose kernel reads some layouts far slower than others. The CPU executor reads every operand
    through strided views of the core plan's maps and runs the contraction as numpy's matmul on them, so a
    staging would only add a copy (an operand-sized pack, a split or folded workspace) to its peak memory:
    its schedules are the core plan on the operands' own layouts. (The GPU's schedules run on numpy arrays
    too, through `backends.staged.run`: the tests check them end to end that way.)"""
    return _executor(backend) != "numpy"


@lru_cache(maxsize=PLAN_CACHE_SIZE)
def _cached_schedule(canonical: ContractionProblem, backend: str | None, f64_cores: bool,
                     target: Target, stages: bool) -> Schedule:
    c = _tuned_candidate(canonical, backend)
    if not stages:  # (the CPU executor: the core plan alone, around a tuned partition and tile if any)
        return Schedule(canonical, _cached(canonical) if c is None else make_plan(canonical, c.part, c.tile))
    if c is not None:
        from .tuner import schedule_of

        return schedule_of(canonical, c, target)
    return make_schedule(canonical, f64_cores=f64_cores, target=target)


def cached_schedule(problem: ContractionProblem, backend: str | None = None) -> Schedule:
    """The heuristic schedule (core plan and stagings) of `problem`, cached like `cached_plan`; with
    GETTPY_TUNE=1, the tuned one from the database of the executor `backend` ("numpy" or "cupy"; None:
    the GPU's where there is one). The CPU executor's schedules have no stagings (`executor_stages`).

    The schedule keeps the canonical problem: executors read only its layouts and mode names that
    are consistent within it, never the caller's names.
    """
    return _cached_schedule(problem.canonical(), backend, _f64_cores(backend), executor_target(backend),
                            executor_stages(backend))


def plan_cache_info():
    """functools' CacheInfo(hits, misses, maxsize, currsize) of the schedule cache (einsum's plans)."""
    return _cached_schedule.cache_info()


def clear_plan_cache() -> None:
    _cached.cache_clear()
    _cached_schedule.cache_clear()
