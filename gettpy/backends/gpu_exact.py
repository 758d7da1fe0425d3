"""Integer and bool contractions on the GPU: the SIMT kernel on integer elements, one launch.

The operands are read in their own types (int8 ... int64, uint8 ... uint64, bool; a signed value widens with its
sign) and summed in an unsigned 32- or 64-bit compute type, so that every product and every sum wraps modulo 2^32
or 2^64 (defined behaviour, two's complement). D keeps the low bits of alpha * sum + beta * C: the same value as
numpy's integer einsum, whose arithmetic wraps in the result type (for a D of 32 bits or fewer, and no 64-bit C,
32-bit sums give the same low bits as 64-bit ones; `kernel_compute`). A bool D is sum != 0 (numpy's bool einsum, the
logical or of ands; the count of true products fits the compute type). alpha and beta are integers (taken modulo
2^32 / 2^64 like every other value); for a bool D, 0 or 1.

int8 / uint8 inputs of a compute-bound contraction with a D (and C) of at most 32 bits run on the int8 tensor cores
instead (the same template's mma.sync m16n8k32 tile, or on Hopper its warp-specialised wgmma k32 tile; 32-bit
accumulators that wrap: the same low bits), where plan/heuristic.py's `int8_mma_tile` takes them; both inputs are then
read k-major (plan/reads.py's `int8_read`). Where both inputs have tensor maps, the wgmma tile is fed by TMA
(plan/passes.py's `tma_tile`: the shapes, clusters and cost model of the 2-byte TMA tiles, a k-tile of 128
one-byte values) and launches through backends/gpu.py's launcher, which passes the maps.

Ops: identity only on A, B, C and D (an op on integers is refused with a KernelError naming the operand; numpy
arrays run every op on the CPU executor).

plan/simt.py's `exact_kernel_spec` lowers decided layouts and `exact_spec` takes them from a Plan whose problem has
integer or bool operands (the dtype resolver's integer compute types, `EXACT_PROBLEM_COMPUTE`); `execute_exact`
launches.
"""
from __future__ import annotations

from ..errors import KernelError
from ..kernels.spec import EXACT_DTYPES, KernelSpec
from ..plan.simt import exact_spec
from ..plan.target import device_target
from . import gpu_simt

#: the storage types the integer kernel reads and writes (a GPU dtype resolver adds these to the GPU's types)
GPU_EXACT_DTYPES = frozenset(EXACT_DTYPES)


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
    target = device_target()
    key = (id(plan), read_c, target.sm_count, target.wgmma, target.tma)
    hit = _SPECS.get(key)
    if hit is not None and hit[0] is plan:
        spec = hit[1]
    else:
        spec = exact_spec(plan, read_c, sm_count=target.sm_count, wgmma=target.wgmma, tma=target.tma)
        if len(_SPECS) > 4096:
            _SPECS.clear()
        _SPECS[key] = (plan, spec)  # holds the plan: its id cannot be reused meanwhile
    ka, kb = (b, a) if plan.part.swapped else (a, b)
    ptrs = tuple(int(x.data.ptr) for x in (ka, kb, d)) + ((int(c.data.ptr),) if read_c else ())
    if not gpu_simt.aligned(spec, ptrs):
        raise KernelError("an operand's data pointer is not aligned as its plan assumed; plan again for this array")
    al = scalar(alpha, spec.compute, spec.d.dtype, "alpha")
    be = scalar(beta, spec.compute, spec.d.dtype, "beta")
    launch_exact(spec, ptrs[0], ptrs[1], ptrs[3] if read_c else 0, ptrs[2], al, be, stream)


def launch_exact(spec: KernelSpec, a_ptr: int, b_ptr: int, c_ptr: int, d_ptr: int, alpha, beta, stream=None) -> None:
    """One launch of an integer kernel's spec on raw pointers, alpha and beta as `scalar` gives them: a TMA tile
    through the GETT backend's launcher (which passes its tensor maps), any other through gpu_simt's."""
    if spec.tile.tma:
        from .gpu import launch

        launch(spec, a_ptr, b_ptr, c_ptr, d_ptr, int(alpha), int(beta), stream)
    else:
        gpu_simt.launch(spec, a_ptr, b_ptr, c_ptr, d_ptr, alpha, beta, type(alpha), stream)


__all__ = ["GPU_EXACT_DTYPES", "execute_exact", "launch_exact", "scalar"]
