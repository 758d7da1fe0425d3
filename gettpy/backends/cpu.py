"""The CPU executor: runs a Plan on numpy arrays through the layout emulation.

It reads the GEMM operands out of the tensors' real memory with the plan's layout maps
(`gather_matrix`), multiplies them with numpy's matmul in the accumulate type, applies alpha, beta
and the unary ops, and writes the result through the output's map (`scatter_matrix`). It never calls
np.einsum or np.tensordot: it is the end-to-end check of the planner and the layouts, and the
executor on machines without a GPU.
"""
from __future__ import annotations

import numpy as np

from ..dtypes import NUMPY_ACCUMULATE
from ..layouts.emulate import gather_matrix, scatter_matrix
from ..plan.plan import Plan


def execute(plan: Plan, a: np.ndarray, b: np.ndarray, c: np.ndarray | None, d: np.ndarray,
            alpha=1.0, beta=0.0) -> None:
    """D = op_d(alpha * op_a(A) op_b(B) + beta * op_c(C)), written into `d` in place."""
    acc = NUMPY_ACCUMULATE[plan.problem.compute]
    ka, kb = (b, a) if plan.part.swapped else (a, b)
    op_a, op_b, op_c, op_d = plan.ops
    # (1) gather the GEMM operands through their layout maps, in the accumulate type, ops applied
    ga = op_a(gather_matrix(ka, plan.layout_a, ("b", "m", "k")).astype(acc, copy=False))
    gb = op_b(gather_matrix(kb, plan.layout_b, ("b", "k", "n")).astype(acc, copy=False))
    # (2) the batched GEMM
    r = np.matmul(ga, gb)
    if alpha != 1:
        r = r * np.asarray(alpha).astype(acc)
    # (3) epilogue: beta * op_c(C), op_d, conversion to the output type
    if c is not None and beta != 0:
        gc = op_c(gather_matrix(c, plan.layout_c, ("b", "m", "n")).astype(acc, copy=False))
        r = r + np.asarray(beta).astype(acc) * gc
    r = op_d(r)
    # (4) scatter through the output's map
    scatter_matrix(d, plan.layout_d, ("b", "m", "n"), r.astype(d.dtype, copy=False))
