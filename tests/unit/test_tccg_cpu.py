"""The 48 TCCG contractions on the CPU executor, at reduced extents, C and Fortran order, vs np.einsum.

'C-A-B' (e.g. 'abc-bda-dc') means C[abc] = sum over contracted modes of A[bda] * B[dc], i.e. the einsum
'bda,dc->abc'. Extents are given in alphabetical order of the mode letters. The table is tccg/suite.py's (TCCG's
tccg48.tsv with the seed paper's four misprints corrected), the one the benchmark runs.
TCCG's own convention is column-major; the "F" cases run every tensor, the output included, in Fortran order.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from harness import MAX_ELEMENTS, TCCG48, assert_close, einsum_of, full_extents, nonzero, reduced_extents

import gettpy


def test_table_is_consistent():
    """48 distinct rows, numbered 1..48; the M, N, K columns match the extents (catches transcription slips)."""
    assert [r[0] for r in TCCG48] == list(range(1, 49))
    assert len({r[2] for r in TCCG48}) == 48
    for num, _, con, ext, m, n, k in TCCG48:
        full = full_extents(con, ext)
        c, a, b = (set(t) for t in con.split("-"))
        assert math.prod(full[x] for x in sorted(c & a)) == m, num
        assert math.prod(full[x] for x in sorted(c & b)) == n, num
        assert math.prod(full[x] for x in sorted(a & b)) == k, num
        assert not (a & b & c), f"{num}: TCCG contractions have no batch modes"


def _params():
    for num, _, con, ext, *_ in TCCG48:
        for order in ("C", "F"):
            yield pytest.param(num, con, ext, order, id=f"{num:02d}-{con}-{order}")


@pytest.mark.parametrize("num,contraction,extents,order", list(_params()))
def test_tccg(num, contraction, extents, order):
    ext = reduced_extents(num, contraction, extents)
    subs = einsum_of(contraction)
    c_modes, a_modes, b_modes = contraction.split("-")
    rng = np.random.default_rng(num)
    a = nonzero(rng, [ext[m] for m in a_modes])
    b = nonzero(rng, [ext[m] for m in b_modes])
    assert max(a.size, b.size, math.prod(ext[m] for m in c_modes)) <= MAX_ELEMENTS
    assert min(ext.values()) >= 2
    if order == "F":
        a, b = np.asfortranarray(a), np.asfortranarray(b)
        out = np.empty([ext[m] for m in c_modes], order="F")
        got = gettpy.einsum(subs, a, b, out=out)
        assert got is out
    else:
        got = gettpy.einsum(subs, a, b)
    assert_close(got, np.einsum(subs, a, b), np.float64)


def test_same_table_as_tccg_suite():
    """Where the benchmark's suite module is importable (repo root on sys.path), its table is this one."""
    suite = pytest.importorskip("tccg.suite")
    table = getattr(suite, "TABLE", None)
    if table is None:
        pytest.skip("tccg.suite has no TABLE")
    assert [tuple(r) for r in table] == [tuple(r) for r in TCCG48]
