"""The 48 contractions of the TCCG benchmark suite, as a literal table.

Each entry is ``C-A-B``, e.g. ``abc-bda-dc``: C[abc] = sum over the contracted modes of A[bda] * B[dc],
the einsum ``"bda,dc->abc"``. Extents are listed in alphabetical order of the mode letters. The sizes
are TCCG's full-mode, double-precision sizes (benchmark.py of the TCCG generator). TCCG's convention is
column-major: the FIRST index of every tensor has stride 1 (Fortran order).

Table I of the GETT-on-GPUs paper (seed 004) has four misprints, corrected here:
#11 is abcd-ec-abed, #19 is abc-adec-ebd, #35 is abcdef-dfgb-geac, #44 is abcdef-geac-dfgb.

    >>> SUITE[0].einsum_subscripts()
    'bda,dc->abc'
    >>> [c.num for c in parse_cases("1,7,20-22")]
    [1, 7, 20, 21, 22]
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

#: (num, group, contraction C-A-B, extents in alphabetical mode order, M, N, K) at full size.
TABLE: tuple[tuple[int, str, str, tuple[int, ...], int, int, int], ...] = (
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
)


@dataclass(frozen=True, slots=True)
class Case:
    """One benchmark contraction C = A * B at given extents.

    Attributes:
        num: number in its set (1..48 for TCCG and the perturbed set).
        group: TCCG group name (intensli, ao2mo, ccsd, ccsd_t), or the family of a real-code case.
        contraction: ``C-A-B`` mode strings, e.g. ``"abc-bda-dc"`` (C modes first; modes in A, B and C are
            batch modes, modes in C and one input free modes, modes in both inputs only contracted).
        extents: extent of every mode letter.
        set_name: the benchmark set the case belongs to (``tccg``, ``perturbed``, ``real``).
        dtypes: the benchmark dtypes the case runs in; empty: every real dtype asked for (the complex
            cases name ``c64`` or ``c128`` here).
    """

    num: int
    group: str
    contraction: str
    extents: dict[str, int] = field(hash=False)
    set_name: str = "tccg"
    dtypes: tuple[str, ...] = ()

    def __post_init__(self):
        who = f"{self.set_name} case {self.num}"
        parts = self.contraction.split("-")
        if len(parts) != 3 or not all(parts):
            raise ValueError(f"{who}: contraction {self.contraction!r} is not 'C-A-B'")
        c, a, b = parts
        for name, modes in (("C", c), ("A", a), ("B", b)):
            if len(set(modes)) != len(modes):
                raise ValueError(f"{who}: tensor {name} repeats a mode in {modes!r}")
        missing = sorted(set(a + b + c) - set(self.extents))
        if missing:
            raise ValueError(f"{who}: no extent for mode(s) {missing}")
        bad = {m: e for m, e in self.extents.items() if int(e) < 1}
        if bad:
            raise ValueError(f"{who}: extents must be >= 1, got {bad}")
        if set(c) - set(a + b):
            raise ValueError(f"{who}: output modes {sorted(set(c) - set(a + b))} are in no input")

    def runs_in(self, dtype: str) -> bool:
        """Whether this case runs in benchmark dtype `dtype` (a complex case only in its own dtype)."""
        if self.dtypes:
            return dtype in self.dtypes
        return not dtype.startswith("c")

    # -- modes ---------------------------------------------------------------------------------------
    @property
    def modes(self) -> tuple[str, str, str]:
        """(A modes, B modes, C modes) as strings."""
        c, a, b = self.contraction.split("-")
        return a, b, c

    @property
    def name(self) -> str:
        return f"{self.num:02d}:{self.contraction}"

    def extents_text(self) -> str:
        """``"a=312 b=24 ..."``: the extents in mode order, as the CSV and the results page write them."""
        return " ".join(f"{m}={e}" for m, e in sorted(self.extents.items()))

    def einsum_subscripts(self) -> str:
        """numpy einsum subscripts: ``'abc-bda-dc'`` -> ``'bda,dc->abc'``."""
        a, b, c = self.modes
        return f"{a},{b}->{c}"

    def shapes(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """Shapes of (A, B, C), dimensions in the order the modes are written."""
        return tuple(tuple(self.extents[m] for m in t) for t in self.modes)  # type: ignore[return-value]

    def sizes(self) -> tuple[int, int, int]:
        """Element counts of (A, B, C)."""
        return tuple(math.prod(s) for s in self.shapes())  # type: ignore[return-value]

    # -- GEMM view -----------------------------------------------------------------------------------
    def _prod(self, modes) -> int:
        return math.prod(self.extents[m] for m in modes)

    @property
    def M(self) -> int:
        """Product of the extents of the free modes of A (in A and C, not in B)."""
        a, b, c = self.modes
        return self._prod(m for m in a if m in c and m not in b)

    @property
    def N(self) -> int:
        """Product of the extents of the free modes of B (in B and C)."""
        a, b, c = self.modes
        return self._prod(m for m in b if m in c and m not in a)

    @property
    def K(self) -> int:
        """Product of the extents of the contracted modes (in A and B, not in C)."""
        a, b, c = self.modes
        return self._prod(m for m in a if m in b and m not in c)

    @property
    def L(self) -> int:
        """Product of the batch extents (in A, B and C); 1 for every TCCG case."""
        a, b, c = self.modes
        return self._prod(m for m in a if m in b and m in c)

    def flops(self) -> int:
        """2 * M * N * K (times the batch size)."""
        return 2 * self.M * self.N * self.K * self.L

    def bytes(self, itemsizes: int | tuple[int, int, int] = 2) -> int:
        """Bytes of A, B and C each moved once; `itemsizes` is one size or (A, B, C)."""
        if isinstance(itemsizes, int):
            itemsizes = (itemsizes, itemsizes, itemsizes)
        return sum(n * s for n, s in zip(self.sizes(), itemsizes, strict=True))

    # -- variants ------------------------------------------------------------------------------------
    def with_extents(self, extents: dict[str, int]) -> Case:
        return dataclasses.replace(self, extents=dict(extents))

    def reduced(self, max_elems: int = 1 << 15) -> Case:
        """The same contraction with extents scaled down so no tensor exceeds `max_elems` elements.

        The largest extent of the largest tensor is cut to 3/4 (never below 2) until every tensor fits;
        extents already at 2 stay. Deterministic, so CPU runs are reproducible.
        """
        ext = dict(self.extents)
        case = self.with_extents(ext)
        while True:
            sizes = case.sizes()
            big = max(range(3), key=lambda i: sizes[i])
            if sizes[big] <= max_elems:
                return case
            cands = [m for m in case.modes[big] if ext[m] > 2]
            if not cands:
                return case
            m = max(cands, key=lambda x: (ext[x], x))
            ext[m] = max(2, (ext[m] * 3) // 4)
            case = self.with_extents(ext)


def _build() -> tuple[Case, ...]:
    out = []
    for num, group, contraction, exts, _m, _n, _k in TABLE:
        letters = sorted(set(contraction.replace("-", "")))
        if len(letters) != len(exts):
            raise ValueError(f"TCCG table row {num}: {len(letters)} modes but {len(exts)} extents")
        out.append(Case(num, group, contraction, dict(zip(letters, exts, strict=True))))
    return tuple(out)


#: the 48 TCCG contractions at full size, SUITE[i].num == i + 1
SUITE: tuple[Case, ...] = _build()


def parse_cases(spec: str | None, cases: tuple[Case, ...] = SUITE) -> tuple[Case, ...]:
    """Cases of `cases` (numbered 1..len) selected by ``"1,7,20-30"`` (numbers and inclusive ranges); None, ""
    or "all": all of them.

    Order follows the spec; repeats are dropped.
    """
    if spec is None or spec.strip().lower() in ("", "all"):
        return cases
    nums: list[int] = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            if "-" in part:
                lo_s, hi_s = part.split("-", 1)
                lo, hi = int(lo_s), int(hi_s)
                if lo > hi:
                    raise ValueError
                rng = range(lo, hi + 1)
            else:
                rng = range(int(part), int(part) + 1)
        except ValueError:
            raise ValueError(f"--cases: cannot read {part!r} (use numbers and ranges like 1,7,20-30)") from None
        for n in rng:
            if not 1 <= n <= len(cases):
                raise ValueError(f"--cases: case {n} is outside 1..{len(cases)}")
            if n not in nums:
                nums.append(n)
    if not nums:
        raise ValueError(f"--cases: {spec!r} selects no case")
    return tuple(cases[n - 1] for n in nums)
