"""The 48 TCCG contractions on the CPU executor, at reduced extents, C and Fortran order, vs np.einsum.

'C-A-B' (e.g. 'abc-bda-dc') means C[abc] = sum over contracted modes of A[bda] * B[dc], i.e. the einsum
'bda,dc->abc'. Extents are given in alphabetical order of the mode letters. The table is a literal copy of
the suite (tccg48.tsv, with the seed paper's four misprints corrected) so that CI needs no other file.
TCCG's own convention is column-major; the "F" cases run every tensor, the output included, in Fortran order.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from _util import assert_close, nonzero

import gettpy

# (num, group, contraction, extents in alphabetical mode order, M, N, K) -- full double-precision sizes
TCCG48 = [
    (1, "intensli", "abc-bda-dc", (312, 312, 24, 312), 97344, 24, 312),
    (2, "intensli", "abc-dca-bd", (312, 24, 296, 312), 92352, 24, 312),
    (3, "intensli", "abcd-dbea-ec", (72, 72, 24, 72, 72), 373248, 24, 72),
    (4, "intensli", "abcd-deca-be", (72, 24, 72, 72, 72), 373248, 24, 72),
    (5, "intensli", "abcd-ebad-ce", (72, 72, 24, 72, 72), 373248, 24, 72),
    (6, "intensli", "abcde-efbad-cf", (48, 32, 24, 32, 48, 32), 2359296, 24, 32),
    (7, "intensli", "abcde-ecbfa-fd", (48, 32, 32, 24, 48, 48), 2359296, 24, 48),
    (8, "intensli", "abcde-efcad-bf", (48, 24, 32, 32, 48, 32), 2359296, 24, 32),
    (9, "ao2mo", "abcd-ea-ebcd", (72, 72, 72, 72, 72), 72, 373248, 72),
    (10, "ao2mo", "abcd-eb-aecd", (72, 72, 72, 72, 72), 72, 373248, 72),
    (11, "ao2mo", "abcd-ec-abed", (72, 72, 72, 72, 72), 72, 373248, 72),
    (12, "ccsd", "ab-ac-cb", (5136, 5120, 5136), 5136, 5120, 5136),
    (13, "ccsd", "ab-acd-dbc", (312, 296, 296, 312), 312, 296, 92352),
    (14, "ccsd", "ab-cad-dcb", (312, 296, 312, 312), 312, 296, 97344),
    (15, "ccsd", "abc-acd-db", (312, 296, 296, 312), 92352, 296, 312),
    (16, "ccsd", "abc-ad-bdc", (312, 312, 296, 296), 312, 92352, 296),
    (17, "ccsd", "abc-adc-bd", (312, 312, 296, 296), 92352, 312, 296),
    (18, "ccsd", "abc-adc-db", (312, 296, 296, 312), 92352, 296, 312),
    (19, "ccsd", "abc-adec-ebd", (72, 72, 72, 72, 72), 5184, 72, 5184),
    (20, "ccsd", "abcd-aebf-dfce", (72, 72, 72, 72, 72, 72), 5184, 5184, 5184),
    (21, "ccsd", "abcd-aebf-fdec", (72, 72, 72, 72, 72, 72), 5184, 5184, 5184),
    (22, "ccsd", "abcd-aecf-bfde", (72, 72, 72, 72, 72, 72), 5184, 5184, 5184),
    (23, "ccsd", "abcd-aecf-fbed", (72, 72, 72, 72, 72, 72), 5184, 5184, 5184),
    (24, "ccsd", "abcd-aedf-bfce", (72, 72, 72, 72, 72, 72), 5184, 5184, 5184),
    (25, "ccsd", "abcd-aedf-fbec", (72, 72, 72, 72, 72, 72), 5184, 5184, 5184),
    (26, "ccsd", "abcd-aefb-fdce", (72, 72, 72, 72, 72, 72), 5184, 5184, 5184),
    (27, "ccsd", "abcd-aefc-fbed", (72, 72, 72, 72, 72, 72), 5184, 5184, 5184),
    (28, "ccsd", "abcd-eafb-fdec", (72, 72, 72, 72, 72, 72), 5184, 5184, 5184),
    (29, "ccsd", "abcd-eafc-bfde", (72, 72, 72, 72, 72, 72), 5184, 5184, 5184),
    (30, "ccsd", "abcd-eafd-fbec", (72, 72, 72, 72, 72, 72), 5184, 5184, 5184),
    (31, "ccsd_t", "abcdef-dega-gfbc", (24, 16, 16, 24, 16, 16, 24), 9216, 4096, 24),
    (32, "ccsd_t", "abcdef-degb-gfac", (24, 16, 16, 24, 16, 16, 24), 6144, 6144, 24),
    (33, "ccsd_t", "abcdef-degc-gfab", (24, 16, 16, 24, 16, 16, 24), 6144, 6144, 24),
    (34, "ccsd_t", "abcdef-dfga-gebc", (24, 16, 16, 24, 16, 16, 24), 9216, 4096, 24),
    (35, "ccsd_t", "abcdef-dfgb-geac", (24, 16, 16, 24, 16, 16, 24), 6144, 6144, 24),
    (36, "ccsd_t", "abcdef-dfgc-geab", (24, 16, 16, 24, 16, 16, 24), 6144, 6144, 24),
    (37, "ccsd_t", "abcdef-efga-gdbc", (24, 16, 16, 16, 24, 16, 24), 9216, 4096, 24),
    (38, "ccsd_t", "abcdef-efgb-gdac", (24, 16, 16, 16, 24, 16, 24), 6144, 6144, 24),
    (39, "ccsd_t", "abcdef-efgc-gdab", (24, 16, 16, 16, 24, 16, 24), 6144, 6144, 24),
    (40, "ccsd_t", "abcdef-gdab-efgc", (24, 16, 16, 16, 24, 16, 24), 6144, 6144, 24),
    (41, "ccsd_t", "abcdef-gdac-efgb", (24, 16, 16, 16, 24, 16, 24), 6144, 6144, 24),
    (42, "ccsd_t", "abcdef-gdbc-efga", (24, 16, 16, 16, 24, 16, 24), 4096, 9216, 24),
    (43, "ccsd_t", "abcdef-geab-dfgc", (24, 16, 16, 24, 16, 16, 24), 6144, 6144, 24),
    (44, "ccsd_t", "abcdef-geac-dfgb", (24, 16, 16, 24, 16, 16, 24), 6144, 6144, 24),
    (45, "ccsd_t", "abcdef-gebc-dfga", (24, 16, 16, 24, 16, 16, 24), 4096, 9216, 24),
    (46, "ccsd_t", "abcdef-gfab-degc", (24, 16, 16, 24, 16, 16, 24), 6144, 6144, 24),
    (47, "ccsd_t", "abcdef-gfac-degb", (24, 16, 16, 24, 16, 16, 24), 6144, 6144, 24),
    (48, "ccsd_t", "abcdef-gfbc-dega", (24, 16, 16, 24, 16, 16, 24), 4096, 9216, 24),
]

#: largest number of elements of any one tensor at the reduced extents
MAX_ELEMENTS = 5000


def einsum_of(contraction: str) -> str:
    """'abc-bda-dc' -> 'bda,dc->abc'."""
    c, a, b = contraction.split("-")
    return f"{a},{b}->{c}"


def full_extents(contraction: str, extents: tuple[int, ...]) -> dict[str, int]:
    modes = sorted(set(contraction.replace("-", "")))
    assert len(modes) == len(extents), f"{contraction}: {len(modes)} modes but {len(extents)} extents"
    return dict(zip(modes, extents, strict=True))


def reduced_extents(num: int, contraction: str, extents: tuple[int, ...]) -> dict[str, int]:
    """Every extent scaled by one factor so that each tensor has <= MAX_ELEMENTS elements (extent >= 2).

    One mode per contraction (which one depends on `num`) is made odd, so that no test sees only
    even, power-of-two-friendly extents.
    """
    full = full_extents(contraction, extents)
    tensors = contraction.split("-")

    def at(s: float) -> dict[str, int]:
        return {m: max(2, round(e * s)) for m, e in full.items()}

    def fits(ext: dict[str, int]) -> bool:
        return all(math.prod(ext[m] for m in t) <= MAX_ELEMENTS for t in tensors)

    s = 1.0
    while not fits(at(s)):
        s *= 0.97
    ext = at(s)
    modes = sorted(ext)
    m = modes[num % len(modes)]
    if ext[m] % 2 == 0:
        ext[m] += -1 if ext[m] > 2 else 1
        if not fits(ext):
            ext[m] -= 2 if ext[m] > 3 else 0
    return ext


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
