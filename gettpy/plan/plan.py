"""Plan: a fully decided binary contraction — partition, order, roles and the four layouts.

The plan is device independent; the GPU backend turns it into a kernel spec (tile configuration and
specialisation) and the CPU executor runs it directly through the layout emulation.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..layouts.descriptor import OperandLayout, build_operand_layout
from ..ops import Op
from .partition import Partition, apply_split, partition, split_modes
from .problem import ContractionProblem, TensorInfo


@dataclass(frozen=True, slots=True)
class Plan:
    """A decided contraction.

    Attributes:
        problem: what is computed.
        part: ordered mode sets; `part.swapped` means the kernel's A is the problem's B.
        layout_a: the kernel's A, dims ("m", "k", "b"). layout_b: the kernel's B, dims ("k", "n", "b").
        layout_c: C input, dims ("m", "n", "b"), or None. layout_d: the output, same dims.
        M, N, K, batch: GEMM extents (products of the sets' extents; 1 for an empty set).
        tile: a TileConfig chosen by the autotuner, or None (the GPU backend's heuristic picks one).
    """

    problem: ContractionProblem
    part: Partition
    layout_a: OperandLayout
    layout_b: OperandLayout
    layout_c: OperandLayout | None
    layout_d: OperandLayout
    M: int
    N: int
    K: int
    batch: int
    tile: object | None = None

    @property
    def kernel_a(self) -> TensorInfo:
        return self.problem.b if self.part.swapped else self.problem.a

    @property
    def kernel_b(self) -> TensorInfo:
        return self.problem.a if self.part.swapped else self.problem.b

    @property
    def ops(self) -> tuple[Op, Op, Op | None, Op]:
        """(op of kernel A, op of kernel B, op of C, op of D)."""
        c = self.problem.c
        return self.kernel_a.op, self.kernel_b.op, None if c is None else c.op, self.problem.d.op

    @property
    def flops(self) -> int:
        return 2 * self.M * self.N * self.K * self.batch


def make_plan(problem: ContractionProblem, part: Partition | None = None, tile=None) -> Plan:
    """Plan `problem` with the heuristic partition, or with `part` and `tile` (the autotuner's candidates)."""
    part = part or partition(problem)
    ext = dict(problem.extents)
    ta = problem.b if part.swapped else problem.a
    tb = problem.a if part.swapped else problem.b
    m, n, cuts = split_modes(part, ext)  # interleaved sets: cut modes become two virtual modes

    def lay(name, t, groups):
        e, st = apply_split(ext, t.stride_of(), cuts)
        return build_operand_layout(name, groups, e, st, t.itemsize, t.align)

    la = lay("A", ta, {"m": m, "k": part.k, "b": part.b})
    lb = lay("B", tb, {"k": part.k, "n": n, "b": part.b})
    out_groups = {"m": m, "n": n, "b": part.b}
    lc = None if problem.c is None else lay("C", problem.c, out_groups)
    ld = lay("D", problem.d, out_groups)
    size = lambda modes: math.prod(ext[m] for m in modes)  # noqa: E731
    return Plan(problem, part, la, lb, lc, ld, size(part.m), size(part.n), size(part.k), size(part.b), tile)
