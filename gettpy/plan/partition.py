"""Partition the modes into I_m, I_n, I_k, I_b and order each set (the GETT planner's heuristic).

Sets (D is the output):
    I_b = A ∩ B ∩ D     batch: its own grid dimension
    I_m = (A ∩ D) \\ B    rows of the GEMM
    I_n = (B ∩ D) \\ A    columns of the GEMM
    I_k = (A ∪ B) \\ D    summed; a mode found in only one input is summed with stride 0 in the other
                         (the pre-reduction happens inside the GEMM's K loop, no extra pass).

Order inside a set. Each set is read or written by two or three tensors; for each of them, the order
that sorts the set's modes by increasing |stride| in that tensor gives it the longest stride-1 run (its
contiguous modes then merge into one layout term). The candidates are those orders plus the order of
appearance; each is scored by the sum, over the tensors touching the set, of
``bytes(tensor) * log2(1 + run)``, where run is the number of consecutive elements of the tensor reached
by the first modes of the order (0 unless the first mode has stride 1). The best score wins: the tensor
that moves the most bytes gets its long run when runs conflict. Ties go to the earlier candidate.

Interleaving (`split_m`, `split_n`). When the output's stride-1 mode x is in a set and the input that
holds the set has its own stride-1 mode y in it too (x != y: e.g. ``D[a,b,c,d,e] = A[e,f,b,a,d] B[c,f]``
in column-major order, D runs along a, A along e), no order gives both a run. The planner then cuts x into
x_lo (extent `split`, first) and x_hi (after y): a tile of 128 coordinates covers x_lo x (128 / x_lo)
values of y, D is stored in runs of x_lo and the input is read in vectors along y (a map term with
divisor x_lo, which the kernel's loader copies into consecutive shared-memory slots). x_lo holds at
least 16 bytes of D; when x is short enough it is not cut (split = extent of x, nothing follows y).
The same applies to the other set when D's run is short and continues there (`output_leads`).

Transpose flag (`swapped`). The kernel writes its output tile along n (each thread holds consecutive n),
so when D's stride-1 mode falls in I_m and not in I_n, A and B trade roles (D^T = B^T A^T). Two
measured exceptions: write-bound shapes (`WRITE_BOUND_K`) put D's stride-1 set on the kernel's M, and a
long narrow GEMM whose wide input is read k-major over a long K (`narrow_kmajor_wide`) puts that input on
the kernel's M, where a warpgroup-MMA tile takes it (plan/tiles.py `_narrow_ws`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .problem import ContractionProblem, TensorInfo
from .target import DEFAULT_TARGET


@dataclass(frozen=True, slots=True)
class Partition:
    """Ordered mode sets (first mode fastest) and whether A and B trade roles in the kernel."""

    m: tuple[str, ...]
    n: tuple[str, ...]
    k: tuple[str, ...]
    b: tuple[str, ...]
    swapped: bool = False
    split_m: int = 0
    split_n: int = 0

    def __post_init__(self):
        for name, order, lo in (("m", self.m, self.split_m), ("n", self.n, self.split_n)):
            if lo and len(order) < 2:
                raise ValueError(f"Partition: split_{name}={lo} needs at least two modes in {order}")

    def traded(self) -> Partition:
        """This partition with A and B trading roles: m and n (and their cuts) exchanged, the transpose flag flipped
        (the other orientation of the same GEMM)."""
        return Partition(self.n, self.m, self.k, self.b, not self.swapped, self.split_n, self.split_m)


#: the tile extent an interleaved pair of modes is sized for (the wide side of every mma/simt tile)
INTERLEAVE_TILE = 128


def interleave(order: tuple[str, ...], inp: TensorInfo, x: str | None, out_itemsize: int, ext: dict[str, int],
               inp_small: bool = False):
    """(order, split) of one set: the output's mode x first, then y (inp's stride-1 mode), x cut at
    `split` (0: nothing cut). Only x moves to the front when y is x or absent, or when the input is
    small next to the output (`inp_small`: its vectors are not worth shorter output runs); the order is
    returned as it is when x is None. See the module docstring."""
    if x is None or x not in order:
        return order, 0
    ys = [m for m in order if inp.stride_of().get(m) == 1 and ext[m] > 1]
    if not ys or ys[0] == x or inp_small:
        return (x,) + tuple(m for m in order if m != x), 0
    y = ys[0]
    v = 16 // inp.itemsize
    if ext[y] % v:
        return order, 0
    rest = tuple(m for m in order if m not in (x, y))
    if INTERLEAVE_TILE % (ext[x] * v) == 0:  # x short enough: no cut
        return (x, y) + rest, ext[x]
    for lo in (16, 8, 4):
        if lo * out_itemsize >= 16 and ext[x] % lo == 0 and INTERLEAVE_TILE % (lo * v) == 0:
            return (x, y) + rest, lo
    return order, 0


#: an input smaller than 1/SMALL_INPUT of the output is not interleaved (the output's runs come first)
SMALL_INPUT = 4

#: write-bound shapes (K at most this, M and N at least WRITE_BOUND_MN) put D's stride-1 set on the kernel's M
WRITE_BOUND_K, WRITE_BOUND_MN = 32, 1024

#: narrow_kmajor_wide: the narrow side's extents (a multiple of 8 in between), the least K, and the least wide
#: side (one 256-row tile for each SM of the default target)
NARROW_SIDE, NARROW_KMAJOR_K, NARROW_WIDE = (17, 32), 256, 256 * DEFAULT_TARGET.sm_count


def narrow_kmajor_wide(p: ContractionProblem, mset, nset, kset, bset, ext: dict[str, int]) -> str | None:
    """"a" or "b": the wide input of a long narrow GEMM (one side in NARROW_SIDE, the other at least NARROW_WIDE)
    of 2-byte tensor-core inputs (f16 / bf16, f32 accumulation) with no op on either, no batch and K >=
    NARROW_KMAJOR_K, whose wide input has its stride-1 mode among the summed ones (it is read k-major); None
    otherwise. E.g. column-major ``D[a,b,c] = A[d,c,a] B[b,d]`` with a, c of ~300, b = 24 and d ~300: M ~ 10^5
    along a and c, N = 24, K along d, A read k-major."""
    if bset or p.a.dtype != p.b.dtype or p.a.dtype not in ("f16", "bf16") or p.semiring is not None \
            or p.compute != "f32" or not (p.a.op.is_identity and p.b.op.is_identity):
        return None
    em, en, ek = (math.prod(ext[m] for m in s) for s in (mset, nset, kset))
    narrow, wide = min(em, en), max(em, en)
    if not (NARROW_SIDE[0] <= narrow <= NARROW_SIDE[1] and narrow % 8 == 0 and wide >= NARROW_WIDE
            and ek >= NARROW_KMAJOR_K):
        return None
    t = p.a if em > en else p.b
    if not any(t.stride_of().get(m) == 1 and ext[m] > 1 for m in kset):
        return None
    return "a" if t is p.a else "b"


#: an output run along one GEMM dimension shorter than this (bytes) continues in the other dimension
SHORT_RUN_BYTES = 128


def output_leads(part_m: tuple[str, ...], part_n: tuple[str, ...], d: TensorInfo, ext: dict[str, int]):
    """(x_m, x_n): the output modes that should lead the m and n orders (None: no preference).

    The output's stride-1 mode leads its set. When the output's run along that set is short (e.g. 24
    elements of ``a`` in n, then ``b`` with stride 24 in m), the mode that continues the
    run leads the other set, so a tile stores whole runs of both modes at once (the runs of neighbouring
    rows of the tile are adjacent in memory).
    """
    st = d.stride_of()
    lead = {"m": None, "n": None}
    for name, order in (("m", part_m), ("n", part_n)):
        unit = [m for m in order if st.get(m) == 1 and ext[m] > 1]
        if unit:
            lead[name] = unit[0]
    for name, other in (("m", part_n), ("n", part_m)):
        if lead[name] is None or lead["n" if name == "m" else "m"] is not None:
            continue
        run = ext[lead[name]]
        if run * d.itemsize >= SHORT_RUN_BYTES:
            continue
        nxt = [m for m in other if st.get(m) == run and ext[m] > 1]
        if nxt:
            lead["n" if name == "m" else "m"] = nxt[0]
    return lead["m"], lead["n"]


def split_modes(part: Partition, ext: dict[str, int]):
    """The interleaved orders of m and n with cut modes as virtual modes (x, then y, then x + "^"), and
    for each cut mode x: (x, split) — see `apply_split`."""
    out, cuts = {}, []
    for name, order, lo in (("m", part.m, part.split_m), ("n", part.n, part.split_n)):
        x = order[0] if order else None
        if lo and (lo < 0 or ext[x] % lo):
            raise ValueError(f"Partition: split_{name}={lo} does not divide the extent {ext[x]} of mode {x!r} "
                             f"(the interleaved mode is cut into {lo} x {ext[x]} / {lo})")
        if lo and ext[x] > lo:
            out[name] = (x, order[1], x + "^") + order[2:]
            cuts.append((x, lo))
        else:
            out[name] = order
    return out["m"], out["n"], tuple(cuts)


def apply_split(ext: dict[str, int], strides: dict[str, int], cuts) -> tuple[dict[str, int], dict[str, int]]:
    """Extents and one tensor's strides with each cut mode x replaced by x (extent split) and x + "^"."""
    ext, strides = dict(ext), dict(strides)
    for x, lo in cuts:
        ext[x + "^"] = ext[x] // lo
        ext[x] = lo
        if x in strides:
            strides[x + "^"] = strides[x] * lo
    return ext, strides


def contiguous_run(order: tuple[str, ...], t: TensorInfo, ext: dict[str, int]) -> int:
    """Consecutive elements of `t` covered by the leading modes of `order` (0 without a stride-1 start)."""
    st = t.stride_of()
    expect, run = 1, 0
    for m in order:
        e = ext[m]
        if e == 1:
            continue
        if st.get(m, 0) != expect:
            break
        run = expect * e
        expect = run
    return run


def order_set(modes: tuple[str, ...], holders: list[TensorInfo], ext: dict[str, int]) -> tuple[str, ...]:
    """Best order of one mode set for the tensors that hold it (see the module docstring)."""
    if len(modes) < 2:
        return modes
    cands = [modes]
    for t in holders:
        st = t.stride_of()
        cands.append(tuple(sorted(modes, key=lambda m, st=st: (abs(st.get(m, 0)) if st.get(m, 0) else math.inf,
                                                                modes.index(m)))))

    def score(order):
        total = 0.0
        for t in holders:
            size = t.itemsize * math.prod(ext[m] for m in t.modes)
            total += size * math.log2(1 + contiguous_run(order, t, ext))
        return total

    best = cands[0]
    for c in cands[1:]:
        if score(c) > score(best):
            best = c
    return best


def partition(p: ContractionProblem) -> Partition:
    """Partition and order the modes of `p` (the planner's heuristic; see the module docstring)."""
    ext = dict(p.extents)
    a, b, d = set(p.a.modes), set(p.b.modes), set(p.d.modes)
    in_order = list(dict.fromkeys(p.d.modes + p.a.modes + p.b.modes))
    pick = lambda s: tuple(m for m in in_order if m in s)  # noqa: E731
    out_tensors = [p.d] + ([p.c] if p.c is not None else [])
    bset = pick(a & b & d)
    mset = pick((a & d) - b)
    nset = pick((b & d) - a)
    kset = pick((a | b) - d)
    part_b = order_set(bset, [p.a, p.b, *out_tensors], ext)
    part_m = order_set(mset, [p.a, *out_tensors], ext)
    part_n = order_set(nset, [p.b, *out_tensors], ext)
    part_k = order_set(kset, [p.a, p.b], ext)
    x_m, x_n = output_leads(part_m, part_n, p.d, ext)
    size = lambda t: t.itemsize * math.prod(ext[m] for m in t.modes)  # noqa: E731
    small = lambda t: SMALL_INPUT * size(t) < size(p.d)  # noqa: E731
    part_m, split_m = interleave(part_m, p.a, x_m, p.d.itemsize, ext, small(p.a))
    part_n, split_n = interleave(part_n, p.b, x_n, p.d.itemsize, ext, small(p.b))
    dst = p.d.stride_of()
    unit_in_m = any(dst[m] == 1 and ext[m] > 1 for m in part_m)
    unit_in_n = any(dst[m] == 1 and ext[m] > 1 for m in part_n)
    swapped = unit_in_m and not unit_in_n
    extent = lambda modes: math.prod(ext[m] for m in modes)  # noqa: E731
    write_bound = extent(kset) <= WRITE_BOUND_K and min(extent(mset), extent(nset)) >= WRITE_BOUND_MN
    if write_bound and not (split_m or split_n):
        # write-bound (K <= 32, large M and N: each output element is stored after a few k-tiles): measured
        # on the H100, D's stride-1 set as the kernel's M (the opposite transpose flag) ran up to 1.2x faster
        # on most such shapes (2-14%; one in eighteen 11% slower)
        swapped = unit_in_n and not unit_in_m
    wide = None if split_m or split_n else narrow_kmajor_wide(p, mset, nset, kset, bset, ext)
    if wide is not None:
        # the wide input on the kernel's M (its A), where plan/tiles.py `_narrow_ws` reads it on sm_90
        swapped = wide == "b"
    if swapped:
        return Partition(part_n, part_m, part_k, part_b, True, split_n, split_m)
    return Partition(part_m, part_n, part_k, part_b, False, split_m, split_n)
