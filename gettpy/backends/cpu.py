"""The CPU executor: runs a Plan on numpy arrays through the layout emulation.

It reads the GEMM operands out of the tensors' real memory with the plan's layout maps
(`gather_matrix`), multiplies them with numpy's matmul in the accumulate type (or reduces them with a
semiring's numpy twins), applies alpha, beta
and the unary ops, and writes the result through the output's map (`scatter_matrix`). It never calls
np.einsum or np.tensordot: it is the end-to-end check of the planner and the layouts, and the
executor on machines without a GPU.
"""
from __future__ import annotations

import numpy as np

from ..dtypes import NUMPY_ACCUMULATE, accumulate_type, round_tf32
from ..layouts.emulate import gather_matrix, scatter_matrix
from ..plan.plan import Plan


def execute(plan: Plan, a: np.ndarray, b: np.ndarray, c: np.ndarray | None, d: np.ndarray,
            alpha=1.0, beta=0.0) -> None:
    """D = op_d(alpha * op_a(A) op_b(B) + beta * op_c(C)), written into `d` in place."""
    acc = NUMPY_ACCUMULATE[accumulate_type(plan.problem.compute)]
    ka, kb = (b, a) if plan.part.swapped else (a, b)
    op_a, op_b, op_c, op_d = plan.ops
    # (1) gather the GEMM operands through their layout maps, in the accumulate type, ops applied
    ga = op_a(gather_matrix(ka, plan.layout_a, ("b", "m", "k")).astype(acc, copy=False))
    gb = op_b(gather_matrix(kb, plan.layout_b, ("b", "k", "n")).astype(acc, copy=False))
    if plan.problem.compute == "tf32":  # the tensor cores' TF32 inputs (3xtf32 is close to float32)
        ga, gb = round_tf32(ga), round_tf32(gb)
    # (2) the batched GEMM (a semiring: its ⊕-reduction of the ⊗ products)
    sr = plan.problem.semiring
    r = np.matmul(ga, gb) if sr is None else _semiring_matmul(sr, ga, gb, acc)
    if alpha != 1:
        r = r * np.asarray(alpha).astype(acc)
    # (3) epilogue: beta * op_c(C), op_d, conversion to the output type
    if c is not None and beta != 0:
        gc = op_c(gather_matrix(c, plan.layout_c, ("b", "m", "n")).astype(acc, copy=False))
        r = r + np.asarray(beta).astype(acc) * gc
    r = op_d(r)
    # (4) scatter through the output's map
    scatter_matrix(d, plan.layout_d, ("b", "m", "n"), r.astype(d.dtype, copy=False))


#: elements of the (b, m, k-chunk, n) product block a semiring contraction materialises at once
SEMIRING_BLOCK = 1 << 22


def _semiring_matmul(sr, ga: np.ndarray, gb: np.ndarray, acc) -> np.ndarray:
    """r[b, m, n] = ⊕_k ga[b, m, k] ⊗ gb[b, k, n], in chunks of k (bounded memory)."""
    nb, m, k = ga.shape
    n = gb.shape[2]
    r = np.full((max(nb, gb.shape[0]), m, n), sr.zero, dtype=acc)
    step = max(1, SEMIRING_BLOCK // max(1, r.size))
    for k0 in range(0, k, step):
        prod = sr.numpy_mul(ga[:, :, k0:k0 + step, None], gb[:, None, k0:k0 + step, :]).astype(acc, copy=False)
        r = sr.numpy_add(r, sr.reduce(prod, axis=2))
    return r
