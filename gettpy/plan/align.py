"""Pack-then-GETT for memory-bound GEMMs whose k-major rows are not whole 16-byte vectors.

An input whose leading k mode has an extent that is not a multiple of the 16-byte vector (an odd K, with k
contiguous: rows of odd length) starts every row at a misaligned offset, so the kernel reads it in narrow
vectors or element by element. The bytes moved do not change (a warp's consecutive elements still fill whole
sectors), but the loader issues 16 / v times the instructions per byte and streams at a fraction of the copy
bandwidth (`Target.load_gbs`). A memory-bound GEMM is that stream, so the cliff is the whole time.

The alternative: pack every input that holds the leading k mode into a k-major buffer whose leading k extent
is rounded up to whole vectors and zero-filled (Schedule.pad_ext; zeros add nothing to the sums), and run the
core, split-K included, on aligned 16-byte loads. `padded_k_memory` prices both with the target's model:

* in place (or as the schedule already stages it: an m / n-first pack of a gathered input), each input costs
  its pack (its read and its write at the loader rate of the copy's vectors, plus a launch) and the core's
  reads of its bytes, once per CTA row / column that reads it, at the loader rate of the vector it is read in;
* padded, each holder of the mode costs its zero-filled pack (`padded_pack_us`: the realigning row copy of
  gettpy.kernels.realign where its rows are contiguous, at the copy bandwidth) and the core's reads of the
  padded bytes at the copy bandwidth;

and the padded schedule is chosen where it is cheaper by at least PAD_MIN_GAIN.
"""
from __future__ import annotations

import math

from .problem import TensorInfo
from .target import Target

#: the padded schedule must predict at most this fraction of the staged-as-is schedule's time
PAD_MIN_GAIN = 0.8


def _size(t: TensorInfo, ext) -> int:
    return math.prod(ext[m] for m in t.modes)


def _copy_plan(t: TensorInfo, order: tuple[str, ...], ext: dict[str, int], pad: int = 0):
    """(bytes a thread reads, bytes it writes, whether the copy transposes) when the pack copies `t` into a dense
    layout with its modes in `order` (first fastest; `pad`: that mode's padded extent, 0 for none): the tiled
    copy's or the row copy's vectors (gettpy.kernels.permute), whole 16-byte vectors for a dense source."""
    from ..kernels.permute import plan_permute, plan_rowcopy

    st = t.stride_of()
    modes = tuple(reversed(order))
    shape, strides = tuple(ext[m] for m in modes), tuple(st[m] for m in modes)
    p = plan_permute(shape, strides, t.itemsize, pad=pad)
    if p is not None:
        return p.wr * t.itemsize, p.ww * t.itemsize, True
    if pad:
        return None
    rc = plan_rowcopy(shape, strides, t.itemsize)
    if rc is not None:
        return rc.w * t.itemsize, rc.w * t.itemsize, False
    return 16, 16, False


def copy_vectors(t: TensorInfo, order: tuple[str, ...], ext: dict[str, int]) -> tuple[int, int]:
    """(bytes a thread reads, bytes it writes) at once when the pack copies `t` into a dense layout with its
    modes in `order` (first fastest): the tiled copy's or the row copy's vectors (gettpy.kernels.permute),
    whole 16-byte vectors for a dense source."""
    return _copy_plan(t, order, ext)[:2]


def _copy_us(n: float, nw: float, plan, itemsize: int, target: Target) -> float:
    """Microseconds of a copy (`_copy_plan`'s) of `itemsize`-byte elements reading n bytes and writing nw: each
    side at the loader rate of its vectors, a transposing copy at the target's `transpose_share` of that."""
    vr, vw, transposes = plan
    us = target.load_us(n, vr) + target.load_us(nw, vw)
    return us / target.transpose_share(itemsize) if transposes else us


def pack_us(t: TensorInfo, order: tuple[str, ...], ext: dict[str, int], target: Target) -> float:
    """Predicted microseconds of a dense pack of `t` in `order`: its read and its write at the loader rate of
    the copy's vectors (`Target.load_gbs`: a copy of single 2-byte elements is issue-bound as a GEMM loader
    is; a transposing copy at `Target.transpose_share` of that), and a launch."""
    n = _size(t, ext) * t.itemsize
    return _copy_us(n, n, _copy_plan(t, order, ext), t.itemsize, target) + target.launch_us


def padded_pack_us(t: TensorInfo, order: tuple[str, ...], ext: dict[str, int], pext: dict[str, int],
                   target: Target) -> float:
    """Predicted microseconds of a zero-filled pack of `t` into `order` over the extents `pext`: one copy where
    only `order`'s first mode is padded -- the realigning row copy (gettpy.kernels.realign: 16-byte loads and
    stores, the row read once and the padded row written once) where the source's rows are that mode's,
    contiguous, and no op is applied, else the tiled copy into the padded rows (gettpy.kernels.permute, at
    the loader rate of its vectors and the target's transpose_share) -- or else the dense pack, a zero-filled
    buffer and an element-wise copy into it."""
    from ..kernels.realign import plan_realign

    n, npad = _size(t, ext) * t.itemsize, _size(t, pext) * t.itemsize
    st = t.stride_of()
    modes = tuple(reversed(order))
    shape, strides = tuple(ext[m] for m in modes), tuple(st[m] for m in modes)
    if all(pext[m] == ext[m] for m in order[1:]):
        if t.op.is_identity and plan_realign(shape, strides, t.itemsize, pext[order[0]]) is not None:
            return target.copy_us(n + npad) + target.launch_us
        tiled = _copy_plan(t, order, ext, pad=pext[order[0]])
        if tiled is not None:
            return _copy_us(n, npad, tiled, t.itemsize, target) + target.launch_us
    return (pack_us(t, order, ext, target) + target.copy_us(npad) + target.load_us(n + npad, t.itemsize)
            + 2 * target.launch_us)


def padded_k_memory(k0: str, ext: dict[str, int], sides, target: Target) -> dict[str, int] | None:
    """Extents with `k0` (the core's leading k mode) rounded up to whole 16-byte vectors, where a memory-bound
    GEMM should read zero-filled k-major packs of its inputs (see the module docstring); None where it should
    not.

    sides: for the kernel's A and B, (input, its pack as staged now or None, the pack's mode order (k-major
    for the padded pack), rereads, the microseconds the core takes to read a number of bytes of it as staged
    now). Both inputs hold `k0` (it is a k mode), so both are packed padded.
    """
    itemsize = max(s[0].itemsize for s in sides)
    vec = 16 // itemsize
    if ext[k0] % vec == 0 or any(_size(s[0], ext) == 0 or s[2][:1] != (k0,) for s in sides):
        return None  # (an input that does not lead with the mode, e.g. a broadcast one, cannot be padded along it)
    pext = dict(ext)
    pext[k0] = math.ceil(ext[k0] / vec) * vec
    now = padded = 0.0
    for info, pk, order, rereads, read_us in sides:
        n = _size(info, ext) * info.itemsize
        now += read_us(n * max(1, rereads))
        if pk is not None:
            now += pack_us(info, pk.modes, ext, target)
        padded += (padded_pack_us(info, order, ext, pext, target)
                   + target.load_us(_size(info, pext) * info.itemsize * max(1, rereads), 16))
    return pext if padded <= PAD_MIN_GAIN * now else None


__all__ = ["PAD_MIN_GAIN", "copy_vectors", "pack_us", "padded_k_memory", "padded_pack_us"]
