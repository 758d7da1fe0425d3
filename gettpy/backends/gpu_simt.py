"""The launch of the SIMT kernel's specs for the types the tile heuristic does not plan (plan/simt.py): complex
(gpu_complex) and integer / bool (gpu_exact).

`aligned` checks the data pointers against the copies a spec makes. `launch` runs a spec's kernel on raw pointers
(one CTA a tile: no persistent, TMA or stream-K options on these tiles), through a per-spec cache of the loaded
function and its launch figures.
"""
from __future__ import annotations

from ..errors import KernelError
from ..kernels.spec import ITEMSIZE, KernelSpec


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


__all__ = ["aligned", "launch"]
