"""Integer and bool contractions on the GPU: the SIMT kernel on integer elements, one launch.

The operands are read in their own types (int8 ... int64, uint8 ... uint64, bool; a signed value widens with its
sign) and summed in an unsigned 32- or 64-bit compute type, so that every product and every sum wraps modulo 2^32
or 2^64 (defined behaviour, two's complement). D keeps the low bits of alpha * sum + beta * C: the same value as
numpy's integer einsum, whose arithmetic wraps in the result type (for a D of 32 bits or fewer, and no 64-bit C,
32-bit sums give the same low bits as 64-bit ones; `kernel_compute`). A bool D is sum != 0 (numpy's bool einsum, the
logical or of ands; the count of true products fits the compute type). alpha and beta are integers (taken modulo
2^32 / 2^64 like every other value); for a bool D, 0 or 1.

Ops: identity only on A, B, C and D (an op on integers is refused with a KernelError naming the operand; numpy
arrays run every op on the CPU executor).

`exact_kernel_spec` lowers decided layouts; `exact_spec` takes them from a Plan whose problem has integer or bool
operands (the dtype resolver's integer compute types, `EXACT_PROBLEM_COMPUTE`); `execute_exact` launches.
"""
from __future__ import annotations

from ..errors import KernelError
from ..kernels.spec import EXACT_DTYPES, ITEMSIZE, KernelSpec, TileConfig
from ..layouts.descriptor import OperandLayout
from . import gpu_simt

#: the storage types the integer kernel reads and writes (a GPU dtype resolver adds these to the GPU's types)
GPU_EXACT_DTYPES = frozenset(EXACT_DTYPES)
#: the problem compute types (ContractionProblem.compute) that run here: integers accumulate in 64 bits of their
#: signedness, bool in bool
EXACT_PROBLEM_COMPUTE = ("i64", "u64", "i32", "u32", "b1")
#: simt tiles (bm, bn, bk, stages, tm, tn) per kernel compute type, largest first (gpu_simt.pick_tile)
EXACT_TILES = {
    "u32": ((128, 128, 16, 3, 8, 8), (128, 64, 16, 3, 8, 4), (64, 64, 16, 3, 4, 4), (32, 64, 16, 3, 2, 4)),
    "u64": ((128, 64, 16, 3, 8, 4), (64, 64, 16, 3, 4, 4), (32, 64, 16, 3, 2, 4), (32, 32, 16, 3, 2, 2)),
}


def kernel_compute(d: str, c: str | None, k: int) -> str:
    """The kernel's compute type: "u32" where D (and C, where read) have 32 bits or fewer (the low 32 bits of the
    sum are all D keeps), else "u64"; for a bool D, "u32" while the count of true products (at most k) fits."""
    if d == "b1":
        return "u32" if k < 2**32 and (c is None or ITEMSIZE[c] <= 4) else "u64"
    return "u32" if ITEMSIZE[d] <= 4 and (c is None or ITEMSIZE[c] <= 4) else "u64"


def exact_kernel_spec(la: OperandLayout, lb: OperandLayout, lc: OperandLayout | None, ld: OperandLayout,
                      dtypes: tuple[str, str, str | None, str], extents: tuple[int, int, int, int],
                      tile: TileConfig | None = None, sm_count: int = gpu_simt.DEFAULT_SM_COUNT) -> KernelSpec:
    """The integer kernel's KernelSpec on decided layouts (the kernel's A and B, C's where read, D's).

    Args:
        dtypes: (A, B, C or None, D) short names, all integer or bool.
        extents: (M, N, K, batch).
    """
    bad = [n for n, t in zip("ABCD", dtypes, strict=True) if t is not None and t not in EXACT_DTYPES]
    if bad:
        raise KernelError(f"operand {bad[0]}: dtype {dtypes['ABCD'.index(bad[0])]} is not an integer or bool type")
    compute = kernel_compute(dtypes[3], dtypes[2], extents[2])
    M, N, _, batch = extents
    tile = tile or gpu_simt.pick_tile(EXACT_TILES[compute], M, N, batch, sm_count)
    return gpu_simt.simt_spec(tile, la, lb, lc, ld, dtypes, compute, extents)


def exact_spec(plan, read_c: bool, tile: TileConfig | None = None,
               sm_count: int = gpu_simt.DEFAULT_SM_COUNT) -> KernelSpec:
    """The integer kernel's KernelSpec of `plan` (read_c: beta != 0 and a C given).

    Raises:
        KernelError: a compute type other than an integer or bool one, or an op other than identity.
    """
    p = plan.problem
    if p.compute not in EXACT_PROBLEM_COMPUTE:
        raise KernelError(f"exact_spec: compute type {p.compute} is not an integer or bool type")
    for name, op in zip("ABCD", plan.ops, strict=True):
        if op is not None and not op.is_identity and (name != "C" or read_c):
            raise KernelError(f"operand {name}: op {op.name!r}: integer and bool contractions on the GPU take no "
                              f"ops (identity only); run on the CPU (numpy arrays)")
    lc = plan.layout_c if read_c else None
    return exact_kernel_spec(plan.layout_a, plan.layout_b, lc, plan.layout_d,
                             (plan.kernel_a.dtype, plan.kernel_b.dtype, p.c.dtype if read_c else None, p.d.dtype),
                             (plan.M, plan.N, plan.K, plan.batch), tile, sm_count)


def scalar(value, compute: str, d: str, what: str):
    """alpha / beta as the kernel's unsigned compute type (modulo 2^32 or 2^64), refusing what is not an integer."""
    import numpy as np

    v = value.item() if hasattr(value, "item") else value
    if isinstance(v, bool):
        v = int(v)
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if not isinstance(v, int):
        raise KernelError(f"{what}={value!r}: an integer contraction takes integer scalars")
    if d == "b1" and v not in (0, 1):
        raise KernelError(f"{what}={value!r}: a bool contraction takes 0 or 1 (False or True)")
    bits = 32 if compute == "u32" else 64
    return (np.uint32 if bits == 32 else np.uint64)(v % 2**bits)


_SPECS: dict = {}


def execute_exact(plan, a, b, c, d, alpha=1, beta=0, stream=None) -> None:
    """D = alpha A B + beta C for an integer or bool plan, in one launch of the integer kernel (cupy arrays).

    Raises:
        KernelError: an op, a non-integer alpha / beta, or a data pointer not aligned as the plan assumed.
    """
    if plan.M == 0 or plan.N == 0 or plan.batch == 0:
        return
    read_c = c is not None and beta != 0 and plan.layout_c is not None
    sm = gpu_simt.sm_count()
    key = (id(plan), read_c, sm)
    hit = _SPECS.get(key)
    if hit is not None and hit[0] is plan:
        spec = hit[1]
    else:
        spec = exact_spec(plan, read_c, sm_count=sm)
        if len(_SPECS) > 4096:
            _SPECS.clear()
        _SPECS[key] = (plan, spec)  # holds the plan: its id cannot be reused meanwhile
    ka, kb = (b, a) if plan.part.swapped else (a, b)
    ptrs = tuple(int(x.data.ptr) for x in (ka, kb, d)) + ((int(c.data.ptr),) if read_c else ())
    if not gpu_simt.aligned(spec, ptrs):
        raise KernelError("an operand's data pointer is not aligned as its plan assumed; plan again for this array")
    al = scalar(alpha, spec.compute, spec.d.dtype, "alpha")
    be = scalar(beta, spec.compute, spec.d.dtype, "beta")
    gpu_simt.launch(spec, ptrs[0], ptrs[1], ptrs[3] if read_c else 0, ptrs[2], al, be, type(al), stream)


__all__ = ["EXACT_PROBLEM_COMPUTE", "EXACT_TILES", "GPU_EXACT_DTYPES", "exact_kernel_spec", "exact_spec",
           "execute_exact", "kernel_compute", "scalar"]
