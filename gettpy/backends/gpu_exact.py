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

`exact_kernel_spec` lowers decided layouts; `exact_spec` takes them from a Plan whose problem has integer or bool
operands (the dtype resolver's integer compute types, `EXACT_PROBLEM_COMPUTE`); `execute_exact` launches.
"""
from __future__ import annotations

from ..errors import KernelError
from ..kernels.spec import EXACT_DTYPES, KernelSpec, OperandSpec, TileConfig
from ..layouts.descriptor import OperandLayout
from ..plan.heuristic import int8_mma_tile, kernel_compute
from ..plan.passes import tma_tile
from ..plan.reads import int8_read
from ..plan.target import device_target
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


def exact_kernel_spec(la: OperandLayout, lb: OperandLayout, lc: OperandLayout | None, ld: OperandLayout,
                      dtypes: tuple[str, str, str | None, str], extents: tuple[int, int, int, int],
                      tile: TileConfig | None = None, sm_count: int = gpu_simt.DEFAULT_SM_COUNT,
                      wgmma: bool = False, tma: bool = False) -> KernelSpec:
    """The integer kernel's KernelSpec on decided layouts (the kernel's A and B, C's where read, D's).

    Args:
        dtypes: (A, B, C or None, D) short names, all integer or bool.
        extents: (M, N, K, batch).
        tile: a simt tile, or an int8 tensor-core (mma) tile; None: plan/heuristic.py's `int8_mma_tile` where it
            takes the contraction (its inputs' k vector widths as the layouts give them), else the largest of
            EXACT_TILES that fills the device (`gpu_simt.pick_tile`).
        wgmma: whether the device runs warpgroup MMA (the int8 tile may then be a wgmma tile).
        tma: whether it has the tensor-memory accelerator (the int8 wgmma tile may then be TMA-fed).
    """
    bad = [n for n, t in zip("ABCD", dtypes, strict=True) if t is not None and t not in EXACT_DTYPES]
    if bad:
        raise KernelError(f"operand {bad[0]}: dtype {dtypes['ABCD'.index(bad[0])]} is not an integer or bool type")
    compute = kernel_compute(dtypes[3], dtypes[2], extents[2])
    M, N, K, batch = extents
    if tile is None:
        kvec = min(la.vector_width("k"), lb.vector_width("k"))
        tile = int8_mma_tile(M, N, K, batch, dtypes, compute, kvec, sm_count, wgmma)
        if tile is not None and tile.ws and tma:
            def read(mn: str, _tile_mn: int) -> OperandSpec:
                return int8_read(la if mn == "m" else lb, mn, dtypes[0] if mn == "m" else dtypes[1], 128)

            tile = tma_tile(M, N, batch, read, 128, sm_count) or tile
    tile = tile or gpu_simt.pick_tile(EXACT_TILES[compute], M, N, batch, sm_count)
    if tile.mma:  # (the int8 tensor-core tile: KernelSpec's int8 checks refuse what it cannot run)
        a, b = int8_read(la, "m", dtypes[0], tile.bk), int8_read(lb, "n", dtypes[1], tile.bk)
        return gpu_simt.lower(tile, a, b, (la, lb, lc, ld), dtypes, compute, extents)
    return gpu_simt.simt_spec(tile, la, lb, lc, ld, dtypes, compute, extents)


def exact_spec(plan, read_c: bool, tile: TileConfig | None = None,
               sm_count: int = gpu_simt.DEFAULT_SM_COUNT, wgmma: bool = False, tma: bool = False) -> KernelSpec:
    """The integer kernel's KernelSpec of `plan` (read_c: beta != 0 and a C given; sm_count, wgmma and tma: the
    device's, as `exact_kernel_spec` takes them).

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
                             (plan.M, plan.N, plan.K, plan.batch), tile, sm_count, wgmma, tma)


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


__all__ = ["EXACT_PROBLEM_COMPUTE", "EXACT_TILES", "GPU_EXACT_DTYPES", "exact_kernel_spec", "exact_spec",
           "execute_exact", "kernel_compute", "launch_exact", "scalar"]
