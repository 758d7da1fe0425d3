"""The SIMT kernel's tiles and KernelSpecs for the contractions the GETT tile heuristic does not plan: complex ones
(the one-launch complex kernel, plan/complex_paths.py) and integer / bool ones (and the int8 tensor-core tile of the
latter).

`simt_spec` lowers decided operand layouts onto a simt tile: how each input is read (vectors of up to 16 bytes along
k or along mn where the layout has them, else element by element with the threads along the smaller stride), how D
is stored (along its vectorisable or smaller-stride dimension), 64-bit offsets where a layout needs them. `pick_tile`
takes the largest of a list of tiles whose grid fills the device several times over. `exact_kernel_spec` and
`exact_spec` are the integer kernel's, on the int8 tensor-core tile where plan/heuristic.py's `int8_mma_tile` takes the
contraction. The backends (gpu_complex, gpu_exact, gpu_simt) compile and launch what these return.
"""
from __future__ import annotations

from ..errors import KernelError
from ..kernels.spec import EXACT_DTYPES, KernelSpec, OperandSpec, OutputSpec, TileConfig
from ..layouts.descriptor import OperandLayout
from .heuristic import int8_mma_tile, kernel_compute
from .passes import tma_tile
from .reads import int8_read
from .target import DEFAULT_TARGET

#: CTAs per SM a simt grid should have at least: these tiles run several CTAs an SM, and a grid of one or two
#: waves loses up to half of its last one (measured: a 1031^3 complex64 GEMM ran 1.4x faster on 32 x 64 tiles,
#: 561 CTAs, than on 128 x 64 ones, 153 CTAs on 132 SMs)
MIN_CTAS_PER_SM = 4


def pick_tile(tiles, M: int, N: int, batch: int, sm_count: int = DEFAULT_TARGET.sm_count) -> TileConfig:
    """The first (largest) of `tiles` ((bm, bn, bk, stages, tm, tn) each, largest first) whose grid has
    MIN_CTAS_PER_SM CTAs for every SM, else the last (smallest); a tile wider than N or taller than M rounded up to
    32 is skipped while a narrower one is listed (its padding would be computed for nothing)."""
    fit = [t for t in tiles if t[0] <= max(32, -(-M // 32) * 32) and t[1] <= max(32, -(-N // 32) * 32)] or tiles
    t = next((t for t in fit if -(-M // t[0]) * -(-N // t[1]) * batch >= MIN_CTAS_PER_SM * sm_count), fit[-1])
    return TileConfig(*t[:4], tm=t[4], tn=t[5])


def _first_stride(layout: OperandLayout, which: str) -> int:
    return min((abs(s) for s in layout.dim(which).strides if s), default=0)


def operand_spec(layout: OperandLayout, mn: str, dtype: str, tile_mn: int, bk: int) -> OperandSpec:
    """How a simt tile reads an input of `layout` (GEMM dimensions mn ("m" or "n"), "k", "b")."""
    vk = min(layout.vector_width("k"), bk)
    vmn, vs = layout.vector_access(mn, tile_mn)
    if vk > 1 and vk >= vmn:
        kmajor, vec, vs = True, vk, 1
    elif vmn > 1:
        kmajor, vec = False, vmn
    else:
        kmajor, vec, vs = _first_stride(layout, "k") <= _first_stride(layout, mn), 1, 1
    return OperandSpec(dtype, layout.dim(mn), layout.dim("k"), layout.dim("b"), vec, kmajor, vs)


def simt_spec(tile: TileConfig, la: OperandLayout, lb: OperandLayout, lc: OperandLayout | None, ld: OperandLayout,
              dtypes: tuple[str, str, str | None, str], compute: str, extents: tuple[int, int, int, int],
              op_exprs: tuple[str, str, str, str] = ("", "", "", "")) -> KernelSpec:
    """The KernelSpec of a contraction on a simt tile.

    Args:
        tile: a simt TileConfig. la, lb: the kernel's A and B (after the planner's swap), lc: C's layout where C
            is read (else None), ld: D's; each with GEMM dimensions m / n, k and b.
        dtypes: (A, B, C or None, D) short names. compute: the kernel's compute type.
        extents: (M, N, K, batch). op_exprs: CUDA expressions of op_a, op_b, op_c, op_d ("" for identity).
    """
    if tile.mma:
        raise KernelError(f"simt_spec: tile {tile} is an mma tile")
    a = operand_spec(la, "m", dtypes[0], tile.bm, tile.bk)
    b = operand_spec(lb, "n", dtypes[1], tile.bn, tile.bk)
    return lower(tile, a, b, (la, lb, lc, ld), dtypes, compute, extents, op_exprs)


def lower(tile: TileConfig, a: OperandSpec, b: OperandSpec, layouts, dtypes: tuple[str, str, str | None, str],
          compute: str, extents: tuple[int, int, int, int],
          op_exprs: tuple[str, str, str, str] = ("", "", "", "")) -> KernelSpec:
    """The KernelSpec of decided input reads `a`, `b` on `tile`: D stored along its vectorisable (else smaller-stride)
    dimension, C's maps where read, 64-bit offsets where a layout needs them.

    Args:
        layouts: (A, B, C or None, D) OperandLayouts (the kernel's A and B; C where read).
    """
    la, lb, lc, ld = layouts
    M, N, K, batch = extents
    vdn, vdm = min(ld.vector_width("n"), tile.bn), min(ld.vector_width("m"), tile.bm)
    ncontig = vdn >= vdm if max(vdn, vdm) > 1 else _first_stride(ld, "n") <= _first_stride(ld, "m")
    d = OutputSpec(dtypes[3], ld.dim("m"), ld.dim("n"), ld.dim("b"), vdn if ncontig else vdm, ncontig)
    c = None if lc is None else OutputSpec(dtypes[2], lc.dim("m"), lc.dim("n"), lc.dim("b"))
    used = [la, lb, ld] + ([lc] if lc is not None else [])
    index64 = any(x.needs_64bit for x in used) or max(M, N, K, batch) >= 2**31 - 1025
    return KernelSpec(tile, M, N, K, batch, a, b, c, d, compute, *op_exprs, read_c=lc is not None, index64=index64)


#: the problem compute types (ContractionProblem.compute) that run here: integers accumulate in 64 bits of their
#: signedness, bool in bool
EXACT_PROBLEM_COMPUTE = ("i64", "u64", "i32", "u32", "b1")

#: simt tiles (bm, bn, bk, stages, tm, tn) per kernel compute type, largest first (pick_tile)
EXACT_TILES = {
    "u32": ((128, 128, 16, 3, 8, 8), (128, 64, 16, 3, 8, 4), (64, 64, 16, 3, 4, 4), (32, 64, 16, 3, 2, 4)),
    "u64": ((128, 64, 16, 3, 8, 4), (64, 64, 16, 3, 4, 4), (32, 64, 16, 3, 2, 4), (32, 32, 16, 3, 2, 2)),
}


def exact_kernel_spec(la: OperandLayout, lb: OperandLayout, lc: OperandLayout | None, ld: OperandLayout,
                      dtypes: tuple[str, str, str | None, str], extents: tuple[int, int, int, int],
                      tile: TileConfig | None = None, sm_count: int = DEFAULT_TARGET.sm_count,
                      wgmma: bool = False, tma: bool = False) -> KernelSpec:
    """The integer kernel's KernelSpec on decided layouts (the kernel's A and B, C's where read, D's).

    Args:
        dtypes: (A, B, C or None, D) short names, all integer or bool.
        extents: (M, N, K, batch).
        tile: a simt tile, or an int8 tensor-core (mma) tile; None: plan/heuristic.py's `int8_mma_tile` where it
            takes the contraction (its inputs' k vector widths as the layouts give them), else the largest of
            EXACT_TILES that fills the device (`pick_tile`).
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
    tile = tile or pick_tile(EXACT_TILES[compute], M, N, batch, sm_count)
    if tile.mma:  # (the int8 tensor-core tile: KernelSpec's int8 checks refuse what it cannot run)
        a, b = int8_read(la, "m", dtypes[0], tile.bk), int8_read(lb, "n", dtypes[1], tile.bk)
        return lower(tile, a, b, (la, lb, lc, ld), dtypes, compute, extents)
    return simt_spec(tile, la, lb, lc, ld, dtypes, compute, extents)


def exact_spec(plan, read_c: bool, tile: TileConfig | None = None,
               sm_count: int = DEFAULT_TARGET.sm_count, wgmma: bool = False, tma: bool = False) -> KernelSpec:
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


__all__ = ["EXACT_PROBLEM_COMPUTE", "EXACT_TILES", "MIN_CTAS_PER_SM", "exact_kernel_spec", "exact_spec", "lower",
           "operand_spec", "pick_tile", "simt_spec"]
