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
  its pack (one read and one write at the copy bandwidth, plus a launch) and the core's reads of its bytes,
  once per CTA row / column that reads it, at the loader rate of the vector it is read in;
* padded, each holder of the mode costs the zero-fill of its buffer, the copy into it and a launch, and the
  core's reads of the padded bytes at the copy bandwidth;

and the padded schedule is chosen where it is cheaper by at least PAD_MIN_GAIN.
"""
from __future__ import annotations

import math

from .target import Target

#: the padded schedule must predict at most this fraction of the staged-as-is schedule's time
PAD_MIN_GAIN = 0.8


def _vec_bytes(read, itemsize: int) -> int:
    """Bytes a thread loads at once when the kernel reads an input as `read` (its OperandSpec)."""
    return max(1, read.vec) * itemsize


def pack_us(nbytes: float, padded_bytes: float, target: Target) -> float:
    """Predicted microseconds of a zero-filled pack: the buffer written with zeros, the input read once and
    written into it, and one launch each."""
    return target.copy_us(padded_bytes + 2 * nbytes) + 2 * target.launch_us


def side_us(nbytes: float, rereads: int, vec_bytes: int, packed: bool, target: Target) -> float:
    """Predicted microseconds of one input as the schedule stages it: its pack where `packed` (one read, one
    write, a launch) and the core's `rereads` reads of it in vectors of `vec_bytes` bytes."""
    t = target.load_us(nbytes * max(1, rereads), vec_bytes)
    if packed:
        t += target.copy_us(2 * nbytes) + target.launch_us
    return t


def padded_k_memory(k0: str, ext: dict[str, int], sides, target: Target) -> dict[str, int] | None:
    """Extents with `k0` (the core's leading k mode) rounded up to whole 16-byte vectors, where a memory-bound
    GEMM should read zero-filled k-major packs of its inputs (see the module docstring); None where it should
    not.

    sides: for A and B, (elements, itemsize, rereads, vector bytes as staged now, packed now). Both inputs
    hold `k0` (it is a k mode), so both are packed padded.
    """
    itemsize = max(s[1] for s in sides)
    vec = 16 // itemsize
    if ext[k0] % vec == 0 or any(s[0] == 0 for s in sides):
        return None
    grow = -(-ext[k0] // vec) * vec / ext[k0]
    now = sum(side_us(n * b, r, v, p, target) for n, b, r, v, p in sides)
    padded = sum(pack_us(n * b, n * b * grow, target) + target.load_us(n * b * grow * max(1, r), 16)
                 for n, b, r, _, _ in sides)
    if padded > PAD_MIN_GAIN * now:
        return None
    pext = dict(ext)
    pext[k0] = math.ceil(ext[k0] / vec) * vec
    return pext


__all__ = ["PAD_MIN_GAIN", "pack_us", "padded_k_memory", "side_us"]
