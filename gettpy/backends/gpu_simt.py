"""KernelSpecs of the SIMT kernel for the types the tile heuristic does not plan: complex (gpu_complex) and integer /
bool (gpu_exact); and their launch.

`simt_spec` is the lowering of decided operand layouts onto a simt tile: how each input is read (vectors of up to
16 bytes along k or along mn where the layout has them, else element by element with the threads along the smaller
stride), how D is stored (along its vectorisable or smaller-stride dimension), 64-bit offsets where a layout needs
them. `pick_tile` takes the largest of a list of tiles whose grid fills the device several times over. `launch` runs
a spec's kernel on raw pointers (one CTA a tile: no persistent, TMA or stream-K options on these tiles), through a
per-spec cache of the loaded function and its launch figures.
"""
from __future__ import annotations

from ..errors import KernelError
from ..kernels.spec import ITEMSIZE, KernelSpec, OperandSpec, OutputSpec, TileConfig
from ..layouts.descriptor import OperandLayout

#: SMs assumed where the device cannot be asked (an H100's)
DEFAULT_SM_COUNT = 132
#: CTAs per SM a simt grid should have at least: these tiles run several CTAs an SM, and a grid of one or two
#: waves loses up to half of its last one (measured: a 1031^3 complex64 GEMM ran 1.4x faster on 32 x 64 tiles,
#: 561 CTAs, than on 128 x 64 ones, 153 CTAs on 132 SMs)
MIN_CTAS_PER_SM = 4


def pick_tile(tiles, M: int, N: int, batch: int, sm_count: int = DEFAULT_SM_COUNT) -> TileConfig:
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


_SM: dict = {}


def sm_count() -> int:
    """SMs of the current device (DEFAULT_SM_COUNT where it cannot be asked), asked once per device."""
    import cupy

    dev = cupy.cuda.runtime.getDevice()
    n = _SM.get(dev)
    if n is None:
        try:
            n = int(cupy.cuda.runtime.deviceGetAttribute(cupy.cuda.runtime.cudaDevAttrMultiProcessorCount, dev))
        except Exception:  # noqa: BLE001 - an unknown device: the default
            n = DEFAULT_SM_COUNT
        _SM[dev] = n
    return n


def aligned(spec: KernelSpec, ptrs: tuple[int, ...]) -> bool:
    """Whether the data pointers (A, B, D and C where read) are aligned as the spec's copies and stores need: to
    the element, and to the vector where one is read or written in vectors."""
    ops = [spec.a, spec.b, spec.d] + ([spec.c] if spec.read_c else [])
    return all(p % (ITEMSIZE[o.dtype] * o.vec) == 0 for p, o in zip(ptrs, ops, strict=True))


_LOADED: dict = {}  # (id(spec), device) -> (spec, function, grid, threads, smem): no spec hashing per call


def launch(spec: KernelSpec, a_ptr: int, b_ptr: int, c_ptr: int, d_ptr: int, alpha, beta, scalar, stream=None):
    """One launch of `spec`'s kernel (one CTA a tile); alpha and beta passed as numpy scalars of type `scalar`
    (the compute type's)."""
    import cupy
    import numpy as np

    dev = cupy.cuda.runtime.getDevice()
    hit = _LOADED.get((id(spec), dev))
    if hit is None or hit[0] is not spec:
        from ..kernels.build import get_function

        if spec.tile.persistent or spec.tile.tma or spec.sk_tiles:
            raise KernelError(f"gpu_simt.launch: tile {spec.tile} needs the GETT backend's launcher")
        if spec.grid > 2**31 - 1:
            raise KernelError(f"{spec.grid} CTAs exceed the grid limit; the contraction is too large for one launch")
        if len(_LOADED) > 4096:
            _LOADED.clear()
        # (holds the spec: its id cannot be reused meanwhile)
        hit = _LOADED[(id(spec), dev)] = (spec, get_function(spec), spec.grid, spec.tile.threads, spec.smem_bytes)
    _, f, grid, threads, smem = hit
    args = (np.uint64(a_ptr), np.uint64(b_ptr), np.uint64(c_ptr), np.uint64(d_ptr), scalar(alpha), scalar(beta))
    f((grid, 1, 1), (threads, 1, 1), args, shared_mem=smem,
      stream=stream if stream is not None else cupy.cuda.get_current_stream())


__all__ = ["DEFAULT_SM_COUNT", "aligned", "launch", "lower", "operand_spec", "pick_tile", "simt_spec", "sm_count"]
