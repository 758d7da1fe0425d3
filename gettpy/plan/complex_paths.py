"""How a complex contraction runs on the GPU: one launch of the complex kernel (`fused_spec`, the SIMT kernel on
interleaved complex elements, four real FMAs a product in registers), or real launches of one real plan over the
operands' real and imaginary planes (`real_plan`: each complex operand as its real plane, strides doubled), which
backends/gpu_complex.py runs where the complex kernel does not apply (a real D, an operand not aligned to its
element). Both take identity and conj on A, B and C and no op on D (`check_complex_ops`).
"""
from __future__ import annotations

import functools

from ..dtypes import ITEMSIZE, is_complex
from ..errors import KernelError
from ..kernels.spec import KernelSpec, TileConfig
from ..ops import identity
from .plan import Plan, make_plan
from .problem import ContractionProblem, TensorInfo
from .simt import pick_tile, simt_spec
from .target import DEFAULT_TARGET

#: the real type of each complex short name
REAL = {"c64": "f32", "c128": "f64"}

#: ops a complex contraction on the GPU folds into the launches (on A, B and C)
SUPPORTED_OPS = ("identity", "conj")

#: bound of the real-plan cache (plans are small; the einsum program cache holds the complex ones)
REAL_PLAN_CACHE_SIZE = 256



def _operand(role: str, t: TensorInfo) -> str:
    return f"operand {role}" if t.name in (role, f"operand {role}") else f"operand {role} ({t.name})"



def check_complex_ops(problem: ContractionProblem, read_c: bool = True) -> None:
    """Raise a KernelError unless every op of `problem` can be folded into the real launches."""
    roles = [("A", problem.a), ("B", problem.b)] + ([("C", problem.c)] if read_c and problem.c is not None else [])
    for role, t in roles:
        if t.op.name not in SUPPORTED_OPS:
            raise KernelError(f"{_operand(role, t)}: op {t.op.name!r}: complex contractions on the GPU support "
                              f"identity and conj ops only; run on the CPU (numpy arrays)")
    if not problem.d.op.is_identity:
        raise KernelError(f"{_operand('D', problem.d)}: op {problem.d.op.name!r}: complex contractions on the GPU "
                          f"support no op on the output (identity only); run on the CPU (numpy arrays)")



# ------------------------------------------------------------------------------------------------ one launch
#: simt tiles of the complex kernel (bm, bn, bk, stages, tm, tn) per compute type, largest first: `fused_tile`
#: takes the first whose grid fills the device several times over (pick_tile; a thread's tm x tn complex
#: accumulators: 32, 16, 8 or 4 of them)
FUSED_TILES = {
    "c64": ((128, 64, 16, 3, 8, 4), (64, 64, 16, 3, 4, 4), (32, 64, 16, 3, 2, 4), (32, 32, 16, 3, 2, 2)),
    "c128": ((64, 64, 8, 3, 4, 4), (32, 64, 8, 3, 2, 4), (32, 32, 8, 3, 2, 2)),
}



def fused_tile(plan: Plan, sm_count: int = DEFAULT_TARGET.sm_count) -> TileConfig:
    """The complex kernel's tile for `plan` (pick_tile over FUSED_TILES)."""
    return pick_tile(FUSED_TILES[plan.problem.compute], plan.M, plan.N, plan.batch, sm_count)



def _op(op) -> str:
    return "gett::conj(x)" if op is not None and op.name == "conj" else ""



def fused_spec(plan: Plan, read_c: bool, tile: TileConfig | None = None,
               sm_count: int = DEFAULT_TARGET.sm_count) -> KernelSpec:
    """The complex kernel's KernelSpec of a complex `plan` (read_c: beta != 0 and a C given).

    Raises:
        KernelError: a real compute type, a real D, or an op other than identity / conj (on D: identity).
    """
    p = plan.problem
    if p.compute not in REAL:
        raise KernelError(f"fused_spec: compute type {p.compute} is not complex")
    if not is_complex(p.d.dtype):
        raise KernelError(f"operand D: the complex kernel writes a complex D, not {p.d.dtype}")
    check_complex_ops(p, read_c)
    op_a, op_b, op_c, _ = plan.ops
    lc = plan.layout_c if read_c else None
    return simt_spec(tile or fused_tile(plan, sm_count), plan.layout_a, plan.layout_b, lc, plan.layout_d,
                              (plan.kernel_a.dtype, plan.kernel_b.dtype, p.c.dtype if read_c else None, p.d.dtype),
                              p.compute, (plan.M, plan.N, plan.K, plan.batch),
                              (_op(op_a), _op(op_b), _op(op_c) if read_c else "", ""))



def _real_info(t: TensorInfo, name: str | None = None) -> TensorInfo:
    """`t` as the TensorInfo of its real plane (a real operand: itself), op dropped (folded by the caller)."""
    if not is_complex(t.dtype):
        return TensorInfo(name or t.name, t.modes, t.strides, t.dtype, t.align, identity)
    rd = REAL[t.dtype]
    return TensorInfo(name or t.name, t.modes, tuple(2 * s for s in t.strides), rd, min(t.align, ITEMSIZE[rd]),
                      identity)



def real_problem(problem: ContractionProblem, d_strides: tuple[int, ...] | None = None) -> ContractionProblem:
    """The real problem whose plan runs every launch of the complex `problem`.

    Each complex operand becomes its real plane: strides doubled (in real elements), dtype f32 / f64,
    alignment capped at the real item size (the imaginary plane starts one real element in), op identity.
    C is given D's modes and strides (the accumulating launch reads D as C); the problem's own C is not
    read by any launch (it is added by the array library). The compute type is the real one.

    Args:
        problem: a problem whose compute type is c64 or c128.
        d_strides: element strides (complex elements, in the order of D's modes) of a temporary of the
            complex compute type to lay D out as instead of D's own layout (alignment 16).
    """
    if problem.compute not in REAL:
        raise KernelError(f"real_problem: compute type {problem.compute} is not complex")
    d = problem.d
    if d_strides is not None:
        d = TensorInfo(d.name, d.modes, tuple(d_strides), problem.compute, 16)
    rd = _real_info(d)
    return ContractionProblem(_real_info(problem.a), _real_info(problem.b), _real_info(d, "C"), rd,
                              problem.extents, REAL[problem.compute])



@functools.lru_cache(maxsize=REAL_PLAN_CACHE_SIZE)
def real_plan(problem: ContractionProblem, d_strides: tuple[int, ...] | None = None) -> Plan:
    """The (cached) heuristic plan of `real_problem(problem, d_strides)`."""
    return make_plan(real_problem(problem, d_strides))


__all__ = ["FUSED_TILES", "REAL", "REAL_PLAN_CACHE_SIZE", "check_complex_ops", "fused_spec", "fused_tile",
           "real_plan", "real_problem"]
