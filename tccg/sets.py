"""The benchmark sets beside TCCG itself: ``perturbed`` and ``real``, seeded and deterministic.

* ``tccg``: the 48 contractions of the TCCG suite as published (suite.py); every extent a multiple of 8.
* ``perturbed``: the same 48 contractions with every extent replaced by a seeded random value within
  +-15% of TCCG's (most of them then not multiples of 8), numbered as in TCCG.
* ``real``: contractions from the families real codes run, with extents drawn from the ranges those codes
  use: coupled-cluster terms (CCSD and the per-block terms of (T)), MPS/DMRG environment updates, Tucker
  tensor-times-matrix products, batched GEMMs, attention, long-K reductions, tall-skinny products, outer
  products, contractions over three or more modes, complex contractions (complex64 and complex128), and
  elementwise and broadcast products (no sum).

Every case of ``real`` is drawn on its own from ``numpy.random.default_rng([seed, family, index])``, so a
seed fixes the set, and changing one family's generator leaves the other families' cases as they were.
Draws are repeated until the case's roofline floor on a nominal H100 (`NOMINAL`) lies in `FLOOR_MS`
for every dtype it runs in, so that each case takes roughly 0.05-50 ms there.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

from .suite import SUITE, Case

SETS = ("tccg", "perturbed", "real")
DEFAULT_SEED = 20261126

#: the relative range of a perturbed extent around TCCG's
PERTURB = 0.15

#: nominal H100 ceilings used only to size the cases: copy bandwidth (read + write) in B/s, GEMM peaks in FLOP/s
NOMINAL = {"bw": 2.9e12, "f16": 7.6e14, "f32": 5.2e13, "f64": 6.0e13}

#: the nominal floor (ms) every generated case must have in each dtype it runs in: (f16 lower, f32 upper)
FLOOR_MS = (0.008, 20.0)

#: bytes per element of (A, B, C) and the peak bounding them, per dtype a real-code case is sized for
_SIZING = {"f16": (2, NOMINAL["f16"], 1), "f32": (4, NOMINAL["f32"], 1),
           "c64": (8, NOMINAL["f32"], 4), "c128": (16, NOMINAL["f64"], 4)}


def nominal_floor_ms(case: Case, dtype: str) -> float:
    """The case's roofline floor in ms on the nominal H100 in `dtype` (f16, f32, c64 or c128)."""
    size, peak, flop_factor = _SIZING[dtype]
    return 1e3 * max(case.bytes(size) / NOMINAL["bw"], flop_factor * case.flops() / peak)


# -- perturbed TCCG -------------------------------------------------------------------------------------

def perturbed(seed: int = DEFAULT_SEED) -> tuple[Case, ...]:
    """TCCG's 48 contractions, each extent e replaced by a uniform random integer in [0.85 e, 1.15 e]."""
    out = []
    for case in SUITE:
        rng = np.random.default_rng([seed, 0, case.num])
        ext = {}
        for m, e in sorted(case.extents.items()):
            lo, hi = math.ceil(e * (1 - PERTURB)), math.floor(e * (1 + PERTURB))
            ext[m] = max(2, int(rng.integers(lo, hi + 1)))
        out.append(Case(case.num, case.group, case.contraction, ext, set_name="perturbed"))
    return tuple(out)


# -- real codes -----------------------------------------------------------------------------------------

def _int(rng, lo: int, hi: int) -> int:
    """Uniform integer in [lo, hi]."""
    return int(rng.integers(lo, hi + 1))


def _odd(rng, lo: int, hi: int) -> int:
    """Uniform odd integer in [lo, hi] (1 <= lo < hi)."""
    first, last = lo | 1, (hi - 1) | 1
    return first + 2 * _int(rng, 0, (last - first) // 2)


def _loguni(rng, lo: int, hi: int) -> int:
    """Log-uniform integer in [lo, hi] (sizes that span decades)."""
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


def _pick(rng, options):
    return options[int(rng.integers(len(options)))]


def _template(i: int, options):
    """The family's i-th case takes its templates in turn, so that every template is in the set."""
    return options[i % len(options)]


def _ccsd(rng, i):
    """CCSD residual terms, spin-orbital form: i,j,k,l occupied (20-60), a,b,c,d virtual (80-400), odd."""
    o, v = _odd(rng, 20, 60), _odd(rng, 80, 400)
    term = _template(i, (
        "abij-abcd-cdij",   # particle-particle ladder: V(ab,cd) t(cd,ij)
        "abij-abkl-klij",   # hole-hole ladder: t(ab,kl) W(kl,ij)
        "abij-akic-cbkj",   # ring term: W(ak,ic) t(cb,kj)
        "klij-klcd-cdij",   # W(kl,ij) intermediate: V(kl,cd) t(cd,ij)
        "abij-ac-cbij",     # Fock virtual block: f(a,c) t(cb,ij)
        "abij-ki-abkj",     # Fock occupied block: f(k,i) t(ab,kj)
        "akic-akdl-dlic",   # ring intermediate: V(ak,dl) t(dl,ic)
    ))
    ext = {m: (o if m in "ijkl" else v) for m in sorted(set(term) - {"-"})}
    return term, ext


def _ccsd_t(rng, i):
    """CCSD(T) triples, one block of the loop over the occupied pair (i, j): a,b,c,d virtual (80-400),
    k,l occupied (20-60), odd."""
    o, v = _odd(rng, 20, 60), _odd(rng, 80, 400)
    term = _template(i, (
        "abck-dab-cdk",     # particle term: V(d,ab|i) t(cd,k|j)
        "abck-abl-clk",     # hole term: V(ab,l|i) t(cl,k|j)
        "abck-bda-dck",     # particle term, permuted operands
        "acbk-alb-kcl",     # hole term, permuted result
    ))
    ext = {m: (o if m in "kl" else v) for m in sorted(set(term) - {"-"})}
    return term, ext


def _mps(rng, i):
    """MPS/DMRG environment updates (one and two sites): bonds a,b,c,e (odd 64-512), physical s,t,p (2-4),
    MPO bonds w,v (odd 3-9)."""
    chi, d, dw = _odd(rng, 64, 512), _int(rng, 2, 4), _odd(rng, 3, 9)
    term = _template(i, (
        "wcsb-awc-asb",     # L(a,w,c) A(a,s,b): the environment meets the ket
        "wcstb-awc-astb",   # L(a,w,c) theta(a,s,t,b): the environment meets a two-site tensor
        "bve-cbvt-cte",     # L-MPO-ket (c,b,v,t) meets the bra: the new environment L'(b,v,e)
        "cvptb-wcstb-wvsp", # ... then the MPO tensor W(w,v,s,p) on the first site
        "avtc-awsc-wvst",   # the MPO applied to a ket that carries an MPO bond: A(a,w,s,c) W(w,v,s,t)
    ))
    ext = {}
    for m in sorted(set(term) - {"-"}):
        ext[m] = d if m in "stp" else dw if m in "wv" else chi
    return term, ext


def _tucker(rng, i):
    """Tucker / tensor-times-matrix: X (extents 60-700) times a factor U (rank r, s: odd 9-65) along one mode."""
    term = _template(i, (
        "rjk-ijk-ri",       # mode-1 product of a third-order tensor
        "irk-ijk-rj",       # mode-2
        "ijr-ijk-rk",       # mode-3
        "ijsl-ijkl-sk",     # mode-3 of a fourth-order tensor
        "rs-ijrs-ij",       # core of a projected pair (contracts two modes)
    ))
    ext = {}
    for m in sorted(set(term) - {"-"}):
        ext[m] = _odd(rng, 9, 65) if m in "rs" else _int(rng, 60, 700 if "l" not in term else 160)
    return term, ext


def _batched_gemm(rng, i):
    """Batched GEMM, batch b odd 8-64, m, n, k 40-1200, the batch mode at different positions."""
    term = _template(i, ("bmn-bmk-bkn", "mnb-mkb-knb", "bmn-bkm-bkn", "mbn-bmk-knb"))
    ext = {"b": _odd(rng, 9, 63), "m": _int(rng, 40, 1200), "n": _int(rng, 40, 1200), "k": _int(rng, 40, 1200)}
    return term, ext


def _attention(rng, i):
    """Attention: batch z (1-8), heads h (8-32), sequence q, s (odd 127-2047), head size d (64-128, 80 among
    them); scores S = Q K^T and output O = P V, in the [batch, head, seq, dim] and [batch, seq, head, dim]
    layouts."""
    term = _template(i, (
        "zhqs-zhqd-zhsd",   # scores, head-major
        "zhqd-zhqs-zhsd",   # P V, head-major
        "zhqs-zqhd-zshd",   # scores, sequence-major (the layout of a fused QKV projection)
        "zqhd-zhqs-zshd",   # P V, sequence-major
    ))
    ext = {"z": _int(rng, 1, 8), "h": _pick(rng, (8, 12, 16, 20, 25, 32)), "q": _odd(rng, 127, 2047),
           "d": _template(i, (80, 128, 64, 80, 96, 112))}
    ext["s"] = ext["q"] if rng.random() < 0.5 else _odd(rng, 127, 2047)
    return term, ext


def _long_k(rng, i):
    """Long-K reductions: a small M.N output (m, n 9-120) over K of 100 thousand to 4 million."""
    term = _template(i, ("mn-km-kn", "mn-mk-nk", "mn-mpq-npq"))
    ext = {"m": _int(rng, 9, 120), "n": _int(rng, 9, 120)}
    k = _loguni(rng, 100_000, 4_000_000)
    if "p" in term:
        ext["p"] = _int(rng, 200, 2000)
        ext["q"] = max(2, k // ext["p"])
    else:
        ext["k"] = k
    return term, ext


def _tall_skinny(rng, i):
    """Tall-skinny products: M of 100 thousand to 2 million rows against a narrow N (5-64), K 16-512."""
    term = _template(i, ("mn-mk-kn", "mn-km-kn", "nm-mk-nk"))
    return term, {"m": _loguni(rng, 100_000, 2_000_000), "n": _int(rng, 5, 64), "k": _int(rng, 16, 512)}


def _outer(rng, i):
    """Outer products: vectors (1,000-30,000), matrices (40-200 per side), and batched vectors."""
    term = _template(i, ("ij-i-j", "ijab-ij-ab", "bij-bi-bj"))
    if term == "ij-i-j":
        return term, {"i": _int(rng, 1000, 30000), "j": _int(rng, 1000, 30000)}
    if term == "bij-bi-bj":
        return term, {"b": _odd(rng, 9, 63), "i": _int(rng, 200, 3000), "j": _int(rng, 200, 3000)}
    return term, {m: _int(rng, 40, 200) for m in "ijab"}


def _multi_mode(rng, i):
    """Contractions over three or more modes (tensor-network and coupled-cluster shapes): contracted a,b,c,e
    (7-40), free x, y, z (20-600)."""
    term = _template(i, (
        "xy-xabc-abcy",     # three contracted modes, in the same order in both operands
        "xy-abxc-cbay",     # three contracted modes, reversed in B
        "xyz-abcx-ybcaz",   # three contracted modes, free modes on both sides of them
        "xy-abcex-yeacb",   # four contracted modes, permuted between the operands
    ))
    ext = {}
    for m in sorted(set(term) - {"-"}):
        ext[m] = _int(rng, 7, 40) if m in "abce" else _int(rng, 20, 600)
    return term, ext


def _complex(rng, i):
    """Complex contractions: GEMM (300-1200 per side), an MPS update (bond odd 64-384), a batched GEMM, and a
    two-qubit gate on a state vector of 20-26 qubits (modes of extent 2 and two blocks)."""
    term = _template(i, ("ij-ik-kj", "wcsb-awc-asb", "bij-bik-bkj", "ixyj-ipqj-xypq"))
    if term == "ij-ik-kj":
        ext = {m: _int(rng, 300, 1200) for m in "ijk"}
    elif term == "wcsb-awc-asb":
        chi = _odd(rng, 64, 384)
        ext = {"a": chi, "b": chi, "c": chi, "w": _odd(rng, 3, 7), "s": _int(rng, 2, 4)}
    elif term == "bij-bik-bkj":
        ext = {"b": _odd(rng, 9, 63), "i": _int(rng, 40, 400), "j": _int(rng, 40, 400), "k": _int(rng, 40, 400)}
    else:
        n = _int(rng, 20, 26)
        left = _int(rng, 0, n - 2)
        ext = {"i": 2 ** left, "j": 2 ** (n - 2 - left), "x": 2, "y": 2, "p": 2, "q": 2}
    return term, ext


def _elementwise(rng, i):
    """Elementwise and broadcast products, with no sum: coupled-cluster amplitudes over their orbital-energy
    denominators (abij-abij-abij; odd occupied 9-61, virtual 61-301), an MPS bond matrix scaled by its singular
    values (ij-ij-j, 500-8000 a side), attention scores masked per key (zhqs-zhqs-zs), and pair amplitudes scaled
    by occupied-pair weights (abij-abij-ij)."""
    term = _template(i, ("abij-abij-abij", "ij-ij-j", "zhqs-zhqs-zs", "abij-abij-ij"))
    if term == "ij-ij-j":
        return term, {"i": _int(rng, 500, 8000), "j": _int(rng, 500, 8000)}
    if term == "zhqs-zhqs-zs":
        return term, {"z": _odd(rng, 1, 15), "h": _int(rng, 8, 32), "q": _int(rng, 256, 2048),
                      "s": _int(rng, 256, 2048)}
    return term, {"a": _odd(rng, 61, 301), "b": _odd(rng, 61, 301), "i": _odd(rng, 9, 61), "j": _odd(rng, 9, 61)}


#: family name -> (generator, number of cases); the complex family's cases alternate complex64 and complex128
FAMILIES: dict[str, tuple[Callable, int]] = {
    "ccsd": (_ccsd, 8),
    "ccsd_t": (_ccsd_t, 6),
    "mps": (_mps, 7),
    "tucker": (_tucker, 6),
    "batched_gemm": (_batched_gemm, 6),
    "attention": (_attention, 6),
    "long_k": (_long_k, 5),
    "tall_skinny": (_tall_skinny, 5),
    "outer": (_outer, 4),
    "multi_mode": (_multi_mode, 5),
    "complex": (_complex, 6),
    "elementwise": (_elementwise, 4),
}

_MAX_DRAWS = 400


def _sized(case: Case) -> bool:
    """Whether the case's nominal floor is within FLOOR_MS in every dtype it is sized for."""
    lo, hi = FLOOR_MS
    if case.dtypes:
        return all(lo <= nominal_floor_ms(case, d) <= hi for d in case.dtypes)
    return nominal_floor_ms(case, "f16") >= lo and nominal_floor_ms(case, "f32") <= hi


def real(seed: int = DEFAULT_SEED) -> tuple[Case, ...]:
    """The real-code set: FAMILIES' cases in order, numbered from 1."""
    out: list[Case] = []
    for fam_no, (family, (gen, count)) in enumerate(FAMILIES.items()):
        for i in range(count):
            rng = np.random.default_rng([seed, 1 + fam_no, i])
            # (complex: c64, c128 alternating, shifted by one after each round of the templates, so that each
            # template meets both)
            dtypes = (("c64", "c128")[(i + i // 4) % 2],) if family == "complex" else ()
            for _ in range(_MAX_DRAWS):
                term, ext = gen(rng, i)
                case = Case(len(out) + 1, family, term, {m: int(e) for m, e in ext.items()}, set_name="real",
                            dtypes=dtypes)
                if _sized(case):
                    break
            else:
                raise ValueError(f"real set, family {family!r}: no draw of case {i} fits the floor range {FLOOR_MS} ms "
                                 f"in {_MAX_DRAWS} tries (seed {seed})")
            out.append(case)
    return tuple(out)


@functools.cache
def cases_of(set_name: str, seed: int = DEFAULT_SEED) -> tuple[Case, ...]:
    """The cases of benchmark set `set_name` (one of SETS) for `seed` (the tccg set ignores the seed)."""
    if set_name == "tccg":
        return SUITE
    if set_name == "perturbed":
        return perturbed(seed)
    if set_name == "real":
        return real(seed)
    raise ValueError(f"--set: unknown set {set_name!r} (choose from {', '.join(SETS)} or all)")


def parse_sets(spec: str | None) -> list[str]:
    """``"tccg,real"`` -> ``["tccg", "real"]``; ``"all"`` -> every set; None -> ``["tccg"]``."""
    if spec is None:
        return ["tccg"]
    out: list[str] = []
    for s in spec.split(","):
        s = s.strip().lower()
        if not s:
            continue
        for name in (SETS if s == "all" else (s,)):
            if name not in SETS:
                raise ValueError(f"--set: unknown set {name!r} (choose from {', '.join(SETS)} or all)")
            if name not in out:
                out.append(name)
    if not out:
        raise ValueError("--set: no set given")
    return out


def families_of(spec: str | None) -> list[str] | None:
    """``"long_k, complex"`` -> ``["long_k", "complex"]``; None, "" or "all": None (every family)."""
    if spec is None or spec.strip().lower() in ("", "all"):
        return None
    return [f.strip() for f in spec.split(",") if f.strip()] or None


def select(cases: tuple[Case, ...], families: str | None, known: set[str] | None = None) -> tuple[Case, ...]:
    """The cases whose group (TCCG group or real-code family) is in the comma list `families` (None: all).

    A family named there must be a group of `cases`, or of `known` where given (the groups of every set of a
    run, so that one set may lack a family another has)."""
    want = families_of(families)
    if want is None:
        return cases
    known = known if known is not None else {c.group for c in cases}
    unknown = [f for f in want if f not in known]
    if unknown:
        raise ValueError(f"--family: {unknown} not in the selected set(s) (they have {', '.join(sorted(known))})")
    return tuple(c for c in cases if c.group in want)
