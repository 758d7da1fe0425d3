"""The profiling probe's tile strings (tccg/probes/tiles.py): an option the kernel no longer has is refused by
name, not by a TypeError from TileConfig."""
from __future__ import annotations

import pytest

from gettpy.kernels.spec import TileConfig


def test_aligned_stream_k_option_is_refused_by_name():
    from tccg.probes.tiles import parse_tile

    with pytest.raises(SystemExit, match=r":sN"):
        parse_tile("128x64x16/4@8x8s:k4:s2")


def test_stream_k_and_clusters_still_parse():
    from tccg.probes.tiles import parse_tile

    assert parse_tile("128x64x16/4@8x8s:k7") == TileConfig(128, 64, 16, 4, tm=8, tn=8, sk_ctas=7)
    t = parse_tile("128x128x64/4@64x128wt:c2")
    assert t.cluster == 2 and t.tma and t.ws and t.wgmma
