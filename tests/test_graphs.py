"""gettpy.graphs.replayable on stand-in streams (no GPU): the calls captured once and the graph replayed, or,
where capture fails, the same calls launched eagerly on each launch; counted call by call."""
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
