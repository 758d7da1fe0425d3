"""Realigned D rows (OutputSpec.realign), without a GPU: where the lowering takes them (odd rows of a 2- or 4-byte
float D along n on the chunked epilogue, no C, no run walk) and where not, the spec's refusal of a forced one, and an
enumeration of the epilogue's partition of a row into words and single values (gett_epilogue.cuh's
`store_row_realigned`) over every alignment and row length."""
from __future__ import annotations

import dataclasses

import pytest
from harness import dense_problem

from gettpy.errors import KernelError
from gettpy.kernels.spec import store_realign_refusal
from gettpy.plan import make_plan
from gettpy.plan.tiles import kernel_spec


def _spec(eq, ext, dtype, order="C", read_c=False):
    return kernel_spec(make_plan(dense_problem(eq, ext, dtype, order)), read_c, wgmma=True)


BATCHED = ("zik,zjk->zij", {"z": 2, "i": 1500, "j": 3001, "k": 768})  # (compute-bound f16: the chunked TMA tile)


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_odd_rows_are_realigned_on_the_chunked_epilogue(dtype):
    spec = _spec(*BATCHED, dtype)                                          # (rows of 3001 along n)
    assert spec.epi_chunk and spec.d.realign and spec.d.vec == 1 and spec.d.ncontig
    aligned = dict(BATCHED[1], j=3008)
    spec = _spec(BATCHED[0], aligned, dtype)                               # (rows of 3008: vectors)
    assert not spec.d.realign and spec.d.vec > 1


def test_where_rows_are_not_realigned():
    spec = _spec("ik,kj->ij", {"i": 1001, "j": 517, "k": 96}, "f16")       # (the staged epilogue)
    assert not spec.epi_chunk and not spec.d.realign and spec.d.vec == 1
    assert not _spec("ik,kj->ij", {"i": 1001, "j": 517, "k": 96}, "f32").d.realign
    assert not _spec(*BATCHED, "f16", read_c=False).d.run


def test_refusals():
    spec = _spec(*BATCHED, "f16")
    assert store_realign_refusal(spec.d, spec.tile, True) == "C is read"
    assert "vectors" in store_realign_refusal(dataclasses.replace(spec.d, vec=2), spec.tile, False)
    assert "f64" in store_realign_refusal(dataclasses.replace(spec.d, dtype="f64"), spec.tile, False)
    assert "chunked" in store_realign_refusal(spec.d, dataclasses.replace(spec.tile, chunked=False), False)
    two = dataclasses.replace(spec.d, n=dataclasses.replace(spec.d.n, divisors=(1, 11), moduli=(11, 273),
                                                             strides=(1, 12)))
    assert "one stride-1 term" in store_realign_refusal(two, spec.tile, False)
    staged = _spec("ik,kj->ij", {"i": 1001, "j": 517, "k": 96}, "f16")
    with pytest.raises(KernelError, match="no realigned rows here: only the chunked epilogue"):
        dataclasses.replace(staged, d=dataclasses.replace(staged.d, realign=True))


def _partition(lead: int, nv: int, fw: int):
    """The columns of a row stored by `store_row_realigned`, as (kind, first column, count) per item."""
    head = min((fw - lead) % fw, nv)
    words = (nv - head) // fw
    tail0 = head + words * fw
    items = []
    for it in range(words + head + (nv - tail0)):
        if it < words:
            items.append(("word", head + it * fw, fw))
        else:
            s = it - words
            items.append(("one", s if s < head else tail0 + (s - head), 1))
    return items


@pytest.mark.parametrize("fw", [8, 4])  # (2- and 4-byte D)
def test_row_partition(fw):
    """Every column of the row stored exactly once, every word at an address that is a multiple of 16 bytes (lead:
    the row's first element's position within its 16-byte word), at most 2 (fw - 1) single values."""
    for lead in range(fw):
        for nv in range(0, 5 * fw + 3):
            cols = []
            for kind, c, n in _partition(lead, nv, fw):
                if kind == "word":
                    assert (lead + c) % fw == 0
                cols.extend(range(c, c + n))
            assert sorted(cols) == list(range(nv)), (lead, nv)
            assert sum(1 for k, _, _ in _partition(lead, nv, fw) if k == "one") <= 2 * (fw - 1)
