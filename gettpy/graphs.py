"""Back-to-back GPU work replayed as one CUDA graph: how `gettpy.tune` times its candidates and how
`python -m tccg` times every library (tccg/timing.py), so that both measure the same thing."""
from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence


def replayable(calls: Sequence[Callable[[], object]], batch: int, stream) -> tuple[Callable[[], None], str]:
    """(launch, how): `launch()` runs `batch` calls, calls[i % len(calls)], on the CuPy `stream`, which the
    caller holds current (``with stream:``) here and around each launch. The calls are captured into one
    CUDA graph that `launch` replays (how = 'graph'); where capture fails (a library synchronises or
    allocates in a way capture forbids) `launch` runs them eagerly, back to back (how = 'events')."""
    n = len(calls)
    graph = None
    try:
        stream.begin_capture()
        try:
            for i in range(batch):
                calls[i % n]()
        finally:
            graph = stream.end_capture()
    except Exception:  # noqa: BLE001 - any capture failure: fall back to eager launches
        graph = None
        stream.synchronize()
    if graph is not None:
        return (lambda: graph.launch(stream)), "graph"

    def eager():
        for i in range(batch):
            calls[i % n]()

    return eager, "events"


def prepare(calls: Sequence[Callable[[], object]], batch_for: Callable[[float], int], stream=None):
    """(launch, how, batch, stream) for timing `calls` (CuPy work, one per input set) on a non-blocking CuPy stream
    (or `stream`): every call once (warm: kernels compiled, memory pools filled), a timed eager pass whose ms per
    call `batch_for` turns into the batch, and the batch made `replayable`; `launch` runs with `stream` current."""
    import cupy

    stream = stream if stream is not None else cupy.cuda.Stream(non_blocking=True)
    e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
    with stream:
        for f in calls:
            f()
        stream.synchronize()
        e0.record(stream)
        for f in calls:
            f()
        e1.record(stream)
        e1.synchronize()
        batch = batch_for(cupy.cuda.get_elapsed_time(e0, e1) / len(calls))
        launch, how = replayable(calls, batch, stream)
    return launch, how, batch, stream


def event_timer(launch: Callable[[], None], batch: int, stream) -> Callable[[], float]:
    """once(): `launch` once between CUDA events on the CuPy `stream` (current around it), ms per call of the
    `batch` it runs."""
    import cupy

    e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()

    def once() -> float:
        with stream:
            e0.record(stream)
            launch()
            e1.record(stream)
        e1.synchronize()
        return cupy.cuda.get_elapsed_time(e0, e1) / batch

    return once


def timed_median(once: Callable[[], float], reps: int, warmup: int = 0) -> float:
    """Median of `reps` results of `once()` (ms per call of one timed batch) after `warmup` untimed calls."""
    for _ in range(warmup):
        once()
    return statistics.median(once() for _ in range(reps))


def replay_ms(calls: Sequence[Callable[[], object]], batch_for: Callable[[float], int], reps: int, warmup: int = 0,
              stream=None) -> tuple[float, str, int]:
    """(median ms per call, how, batch) of `calls` (`prepare`'s batch, launched `warmup` times, then `reps` times
    between CUDA events; each rep's time over the batch, median). How `gettpy.tune` times its candidates and
    `python -m tccg` every CuPy-stream library (tccg/timing.py)."""
    launch, how, batch, stream = prepare(calls, batch_for, stream)
    return timed_median(event_timer(launch, batch, stream), reps, warmup), how, batch


__all__ = ["event_timer", "prepare", "replay_ms", "replayable", "timed_median"]
