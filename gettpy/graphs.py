"""Back-to-back GPU work replayed as one CUDA graph: how `gettpy.tune` times its candidates and how
`python -m tccg` times every library (tccg/timing.py), so that both measure the same thing."""
from __future__ import annotations

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


__all__ = ["replayable"]
