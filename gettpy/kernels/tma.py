"""Tensor maps for the TMA loads of warp-specialised wgmma tiles (TileConfig.tma).

The tensor-memory accelerator copies a box of a tensor described by a 128-byte tensor map (dims,
byte strides, box size, swizzle) into shared memory, zero-filling what lies outside the tensor. An
operand qualifies when each of its GEMM dimensions is one stride term (a dense or strided matrix,
possibly batched: packed inputs, plain GEMMs): its map then has the smem-contiguous dimension
innermost (k for a k-major tile, mn for an mn-major one), the other GEMM dimension next and the batch
last, and boxes of 128 bytes x tile rows (k-major: 64 2-byte or 128 1-byte values a row) or 64 x 64 (mn-major, 2-byte
values, one per 64-wide column atom) land in exactly the 128-byte-swizzled layout the wgmma descriptors read
(gett_loader.cuh, TileLoader::tma). 1-byte integers (the int8 tiles) are read k-major only, as their wgmma reads them.

A k-major operand's mn dimension may also be two stride terms, (g % s) * s0 + (g / s) * s1: the map
takes the two terms as two dims (`TmaGeometry.split` = s), and a box covers rows of the first only, so
that no box straddles two slabs of s rows. Where the tile's rows divide s (e.g. s = 312 = 3 x 104 on a
tile of 104 rows), one box a tile; else boxes of gcd(s, tile rows) rows, a multiple of 8 (one swizzle atom;
a 256-row tile over s = 312: 32 boxes of 8). The kernel's box coordinates are r % s and r / s for each box's
first row r.

A tile of 64 j + 32 columns over an mn-major operand uses half of its last column atom; with TileConfig.half_atom it
loads that atom through a second map of the operand whose boxes are 32 columns wide (`half_atom_geometry`). Under the
128-byte swizzle a box row of 64 bytes lands in the first half of its own 128-byte row, where the 64-column box puts
those columns, and the other half is left unwritten (the TMA unit's behaviour, checked on the H100), so
the wgmma descriptors read the same layout and the stage brings 4 KB less from L2.

`geometry` (pure) decides whether and how; `encode` builds the map's 128 bytes for a
data pointer with NVIDIA's driver bindings (needs a GPU driver).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from ..layouts.descriptor import DimMap
from .spec import ITEMSIZE, OperandSpec

#: bytes of the swizzle's rows (a k-major box's inner edge: 64 2-byte or 128 1-byte elements; an mn-major box's, 2-byte
#: only) and the largest box edge
SWIZZLE_BYTES = 128
MAX_BOX = 256
#: the element types a tensor map reads: 2-byte floats, and 1-byte integers (the int8 tiles, k-major only)
TMA_DTYPES = ("f16", "bf16", "i8", "u8")
#: columns of a half-used last column atom's box (TileConfig.half_atom)
HALF_ATOM_COLS = 32


@dataclass(frozen=True, slots=True)
class TmaGeometry:
    """One operand's tensor map without its pointer: dims (elements, innermost first), byte strides of
    the dims after the first, the box (elements per dim), and the element type."""

    dtype: str
    dims: tuple[int, ...]
    strides: tuple[int, ...]
    box: tuple[int, ...]
    split: int = 0  # (k-major only) the mn dimension as two dims at this extent; 0: one dim
    swizzle: int = 128  # bytes of the swizzle's rows (the loads' tiles: 128)

    @property
    def rank(self) -> int:
        return len(self.dims)

    @property
    def rows(self) -> int:
        """Rows of the mn dimension a box holds (k-major: box[1]; mn-major: 0, boxes one column atom)."""
        return self.box[1] if self.split else 0


def _stride(dm: DimMap) -> int | None:
    """The element stride of a GEMM dimension that is one stride term (0 for an extent of 1), else None."""
    if dm.extent <= 1:
        return 0
    if len(dm.strides) == 1 and dm.divisors[0] == 1 and dm.moduli[0] >= dm.extent:
        return dm.strides[0]
    return None


def _split(dm: DimMap, tile_mn: int) -> tuple[int, int, int, int] | None:
    """(s, s0, s1, rows) where the mn dimension is (g % s) * s0 + (g / s) * s1 over whole slabs of s rows,
    read in boxes of `rows` = gcd(s, tile_mn) rows, which never straddle two slabs and fill a tile of
    `tile_mn` rows exactly (rows a multiple of 8, whole swizzle atoms), else None."""
    if len(dm.strides) != 2 or dm.divisors[0] != 1:
        return None
    s = dm.moduli[0]
    rows = math.gcd(s, tile_mn)
    if dm.divisors[1] != s or dm.extent % s or rows % 8 or dm.moduli[1] < dm.extent // s:
        return None
    return s, dm.strides[0], dm.strides[1], rows


def geometry(op: OperandSpec, tile_mn: int, bk: int, batch: int) -> TmaGeometry | None:
    """The tensor map of operand `op` read on tiles of `tile_mn` x `bk` (batch extent `batch`), or None
    where TMA cannot load it (a dimension of several terms that tiles would straddle, a negative or
    unaligned stride, a type other than TMA_DTYPES, a 1-byte operand read mn-major)."""
    item = ITEMSIZE[op.dtype]
    elems = SWIZZLE_BYTES // item  # (a swizzle row's elements: the box's inner edge)
    if op.dtype not in TMA_DTYPES or bk != elems or tile_mn > MAX_BOX or (item == 1 and not op.kmajor):
        return None
    s_mn, s_k, s_b = _stride(op.mn), _stride(op.k), _stride(op.b)
    split = _split(op.mn, tile_mn) if s_mn is None and op.kmajor else None
    if split is not None:
        s_mn = split[1]
    if None in (s_mn, s_k, s_b):
        return None
    inner, outer = (op.k, op.mn) if op.kmajor else (op.mn, op.k)
    s_in, s_out = (s_k, s_mn) if op.kmajor else (s_mn, s_k)
    if inner.extent > 1 and s_in != 1:
        return None
    dims, strides = [max(inner.extent, 1), max(outer.extent, 1)], [s_out * item]
    box = [elems, (split[3] if split else tile_mn) if op.kmajor else elems]
    if split is not None:
        dims[1] = split[0]
        dims.append(outer.extent // split[0])
        strides.append(split[2] * item)
        box.append(1)
    return _batched(op.dtype, dims, strides, box, batch, s_b * item, split[0] if split else 0)


def half_atom_geometry(op: OperandSpec, tile_mn: int, bk: int, batch: int) -> TmaGeometry | None:
    """(TileConfig.half_atom) the map through which a tile of `tile_mn` = 64 j + 32 columns of the mn-major operand `op`
    loads its last column atom, of which it uses 32 columns: `geometry`'s map with boxes of 32 columns. Under the
    128-byte swizzle a box row of 64 bytes lands in the first half of its 128-byte row of the atom, where the 64-column
    box puts those columns, and leaves the other half unwritten; the box brings 4 KB, not 8 (checked on the H100).
    None where `geometry` has no map or the tile's width is not 64 j + 32."""
    g = geometry(op, tile_mn, bk, batch)
    if g is None or op.kmajor or tile_mn % 64 != 32:
        return None
    return dataclasses.replace(g, box=(HALF_ATOM_COLS, *g.box[1:]))


def _batched(dtype: str, dims: list, strides: list, box: list, batch: int, batch_stride: int, split: int = 0,
             swizzle: int = 128) -> TmaGeometry | None:
    """The map of `dims` (innermost first), the byte `strides` of those after the first and `box`, with the batch
    (extent `batch`, `batch_stride` bytes) as its last dim where there is one; None where a stride is not a
    positive multiple of 16 bytes under 2^40 or a dim reaches 2^31 (the driver's limits)."""
    if batch > 1:
        dims, strides, box = [*dims, batch], [*strides, batch_stride], [*box, 1]
    if dims[1] == 1:  # (one row: any stride will do)
        strides = [max(strides[0], 16), *strides[1:]]
    if any(s <= 0 or s % 16 or s >= 2**40 for s in strides) or any(d >= 2**31 for d in dims):
        return None
    return TmaGeometry(dtype, tuple(dims), tuple(strides), tuple(box), split, swizzle)


def encode(g: TmaGeometry, ptr: int) -> bytes:
    """The 128 bytes of the tensor map of `g` over the data at device pointer `ptr` (16-byte aligned)."""
    import ctypes

    from cuda.bindings import driver as cu

    from ..errors import KernelError

    if ptr % 16:
        raise KernelError(f"TMA: data pointer {ptr:#x} is not 16-byte aligned")
    dt = {"f16": cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
          "bf16": cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
          "i8": cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_UINT8,
          "u8": cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_UINT8}[g.dtype]
    swizzle = {128: cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B,
               64: cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_64B}[g.swizzle]
    err, tmap = cu.cuTensorMapEncodeTiled(
        dt, g.rank, ptr, [cu.cuuint64_t(d) for d in g.dims], [cu.cuuint64_t(s) for s in g.strides],
        [cu.cuuint32_t(b) for b in g.box], [cu.cuuint32_t(1)] * g.rank,
        cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
        cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    if int(err) != 0:
        raise KernelError(f"TMA: cuTensorMapEncodeTiled failed ({err}) for {g} at {ptr:#x}")
    return ctypes.string_at(tmap.getPtr(), 128)


__all__ = ["HALF_ATOM_COLS", "TmaGeometry", "encode", "geometry", "half_atom_geometry"]
