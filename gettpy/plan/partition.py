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

Transpose flag (`swapped`). The kernel writes its output tile along n (each thread holds consecutive n),
so when D's stride-1 mode falls in I_m and not in I_n, A and B trade roles (D^T = B^T A^T).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .problem import ContractionProblem, TensorInfo


@dataclass(frozen=True, slots=True)
class Partition:
    """Ordered mode sets (first mode fastest) and whether A and B trade roles in the kernel."""

    m: tuple[str, ...]
    n: tuple[str, ...]
    k: tuple[str, ...]
    b: tuple[str, ...]
    swapped: bool = False


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
    dst = p.d.stride_of()
    unit_in_m = any(dst[m] == 1 and ext[m] > 1 for m in part_m)
    unit_in_n = any(dst[m] == 1 and ext[m] > 1 for m in part_n)
    swapped = unit_in_m and not unit_in_n
    if swapped:
        return Partition(part_n, part_m, part_k, part_b, True)
    return Partition(part_m, part_n, part_k, part_b, False)
