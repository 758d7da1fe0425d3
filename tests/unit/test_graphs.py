"""gettpy.graphs on stand-in streams and events (no GPU): replayable's calls captured once and the graph replayed,
or, where capture fails, launched eagerly on each launch; replay_ms's warm and timed passes, batch and median;
counted call by call."""
from __future__ import annotations

import pytest

from gettpy.graphs import replayable


class _Stream:
    """A stream whose capture records the calls made between begin_capture and end_capture."""

    def __init__(self, fail: bool):
        self.fail, self.capturing, self.replays, self.synced = fail, False, 0, 0

    def begin_capture(self):
        if self.fail:
            raise RuntimeError("capture refused")
        self.capturing = True

    def end_capture(self):
        self.capturing = False
        stream = self

        class _Graph:
            def launch(self, s):
                assert s is stream
                stream.replays += 1

        return _Graph()

    def synchronize(self):
        self.synced += 1


@pytest.mark.parametrize("fail", [False, True])
def test_replayable_graph_or_eager(fail):
    seen = []
    calls = [lambda i=i: seen.append(i) for i in range(3)]
    stream = _Stream(fail)
    launch, how = replayable(calls, 7, stream)
    expect = [i % 3 for i in range(7)]
    assert how == ("events" if fail else "graph")
    assert seen == ([] if fail else expect)  # (the capture ran the batch once, rotating through the calls)
    launch()
    launch()
    if fail:
        assert seen == expect * 2 and stream.replays == 0 and stream.synced == 1
    else:
        assert seen == expect and stream.replays == 2


class _Event:
    def record(self, stream=None):
        pass

    def synchronize(self):
        pass


@pytest.mark.parametrize("fail", [False, True])
def test_replay_ms_times_the_batch(fail, monkeypatch):
    """gettpy.graphs.replay_ms with stand-in CuPy events (each elapsed time 6 ms) and a stand-in stream: every
    call once to warm, one timed eager pass whose ms per call (6 / 3 = 2) sizes the batch, the batch captured
    (or, where capture fails, launched eagerly), warmup + reps launches, and the median of 6 ms / batch."""
    import sys
    import types

    from gettpy.graphs import replay_ms

    fake = types.SimpleNamespace(cuda=types.SimpleNamespace(Event=_Event, get_elapsed_time=lambda a, b: 6.0))
    monkeypatch.setitem(sys.modules, "cupy", fake)

    class _Ctx(_Stream):
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    seen, est = [], []
    calls = [lambda i=i: seen.append(i) for i in range(3)]
    stream = _Ctx(fail)

    def batch_for(ms):
        est.append(ms)
        return 4

    ms, how, batch = replay_ms(calls, batch_for, reps=5, warmup=2, stream=stream)
    assert est == [2.0] and batch == 4 and ms == 6.0 / 4 and how == ("events" if fail else "graph")
    launches = 2 + 5
    if fail:  # (warm pass, timed pass, then each launch runs the batch eagerly)
        assert seen == [0, 1, 2] * 2 + [0, 1, 2, 0] * launches and stream.replays == 0
    else:  # (warm pass, timed pass, the capture's one run of the batch; the launches replay it)
        assert seen == [0, 1, 2] * 2 + [0, 1, 2, 0] and stream.replays == launches
