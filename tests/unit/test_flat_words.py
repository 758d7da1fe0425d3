"""The arithmetic of flat k-tiles (gett_loader.cuh's load_flat / settle / flat_zero), enumerated in Python: for
random element sizes, mn extents, k-tile depths, thread counts, run misalignments and valid row counts, every slot
(k, m) of the k-tile's first `rows` rows receives exactly the run's element k * M + m, the rows past them are zeroed,
every word read holds at least one byte of the run (so no read leaves the run's page), and the words fit the raw area
that kernels/spec.py counts for the stage."""
from __future__ import annotations

import numpy as np
import pytest

from gettpy.kernels.spec import ITEMSIZE, OperandSpec, TileConfig, _stage_bytes
from gettpy.layouts.descriptor import DimMap


def _flat_words(item: int, em: int, tbk: int, threads: int, addr: int, rows: int):
    """The kernel's walk: (slot -> run index written, slots zeroed, words read as (first byte, last byte))."""
    fw = 16 // item
    flat_words = (tbk * em + fw - 1) // fw + 1
    iters = (flat_words + threads - 1) // threads
    lead = (addr % 16) // item
    n = rows * em
    written, words = {}, []
    for tid in range(threads):
        for i in range(iters):
            w = tid + i * threads
            f0 = w * fw - lead
            if w >= flat_words or f0 >= n:
                continue
            words.append((addr - addr % 16 + 16 * w, addr - addr % 16 + 16 * w + 15))
            for j in range(fw):
                f = f0 + j
                if 0 <= f < n:
                    k, m = divmod(f, em)
                    assert (k, m) not in written, "a slot written twice"
                    written[(k, m)] = f
    zeroed = {divmod(idx, em) for tid in range(threads) for idx in range(n + tid, tbk * em, threads)}
    return written, zeroed, words, flat_words


CASES = [(int(r.choice([1, 2])), int(r.integers(1, 257)), int(r.choice([16, 32, 64, 128])),
          int(r.choice([64, 128, 256])), int(r.integers(0, 1 << 20)))
         for r in [np.random.default_rng(s) for s in range(60)]]


@pytest.mark.parametrize("item,em,tbk,threads,base", CASES)
def test_every_slot_once_and_reads_inside_the_run(item, em, tbk, threads, base):
    rng = np.random.default_rng(em * 7 + tbk)
    addr = base * item  # (an element-aligned run start, any 16-byte misalignment)
    for rows in sorted({tbk, int(rng.integers(1, tbk + 1)), 1}):
        written, zeroed, words, flat_words = _flat_words(item, em, tbk, threads, addr, rows)
        assert written == {(k, m): k * em + m for k in range(rows) for m in range(em)}
        assert zeroed == {(k, m) for k in range(rows, tbk) for m in range(em)}
        run = (addr, addr + rows * em * item - 1)
        assert all(hi >= run[0] and lo <= run[1] for lo, hi in words), "a word holding no byte of the run"
        # the raw area kernels/spec.py adds to the stage holds the header word and every word
        dt = {1: "i8", 2: "f16"}[item]
        op = OperandSpec(dt, DimMap(em, (1,), (em,), (1,)), DimMap(4 * tbk, (1,), (4 * tbk,), (em,)),
                         DimMap(1, (), (), ()), 1, False, 1, flat=True)
        tile = TileConfig(256, 64, tbk, 2, tm=8, tn=4)
        slots = tbk * (256 + 16 // item) * ITEMSIZE[dt]
        assert _stage_bytes(tile, op, 256) - slots >= 16 * (flat_words + 1)
