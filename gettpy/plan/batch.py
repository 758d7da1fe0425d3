"""Batch modes in a tensor's fastest place: stage D through a workspace led by a GEMM dimension, and pack such
an input.

The GETT kernel runs one batch index per CTA (the batch modes are a grid dimension, the outermost) and moves its
tile along the tile's m, n and k modes. Where a tensor's stride-1 mode is a batch mode (scores "zhqs" of
column-major tensors, a batched GEMM "mkb,knb->mnb" in row-major order), no mode of the tile is contiguous in it:
each element the tile touches shares its 32-byte sector with the elements of other batch indices, which other
CTAs touch at other times. Such a tensor is "batch-led"; `sector_share` counts the batch indices one sector
serves.

* **D**: every store is a lone 2- or 4-byte write into a sector that other CTAs complete later, and partly written
  sectors leave the L2 cache before they are whole (a read-modify-write in DRAM): the output's traffic grows up
  to its sector share (16x for 2-byte values).
* **an input**: every CTA reads whole sectors for one element of each, the same share of wasted bytes, however
  often the input is re-read (the schedule's gather rule packs inputs re-read by several CTA rows anyway).

Staging is the cheaper form: the core writes a dense workspace whose fastest modes are the tile's own, and the
schedule's tiled copy (backends/staged.py, kernels/permute.py) moves it into D reading and writing whole sectors
on both sides; an input is packed k-major by the same copy. Either moves the tensor's bytes three times (D:
written by the core, read and written by the copy; an input: read and written by the pack, read by the core), so
it pays where the sector share exceeds `STAGE_PASSES`, and where the tensor is too large for its sectors to stay
in the L2 cache until the CTAs of the other batch indices use them (more than `L2_SHARE` of it). Measured on the
H100 (f16, D batch-led): an output of 9 MB stored in place ran as fast as torch.einsum's transpose-and-GEMM, one
of 1.4 GB took 23x as long.
"""
from __future__ import annotations

import math

from .plan import Plan
from .problem import ContractionProblem, TensorInfo

#: bytes of a DRAM / L2 sector: the unit a lone element's access costs
SECTOR = 32
#: passes over the tensor's bytes that staging or packing costs
STAGE_PASSES = 3
#: tensors smaller than this (elements) are never staged (the copy costs a launch)
MIN_STAGE_ELEMS = 4096
#: the L2 cache's size where the target does not give one (an H100's), and the share of it a batch-led tensor
#: may take and still be accessed in place (the rest holds the other tensors' tiles)
L2_BYTES = 50 << 20
L2_SHARE = 0.25


def batch_run(t: TensorInfo, batch: tuple[str, ...], ext: dict[str, int]) -> int:
    """Elements of `t` that follow each other from its stride-1 mode through batch modes only (the product of
    their extents while each mode's stride is the product of the ones before); 1 where `t`'s stride-1 mode of
    extent > 1 is not a batch mode or where some non-batch mode of extent > 1 also has stride 1."""
    live = sorted(((abs(s), m) for m, s in zip(t.modes, t.strides, strict=True) if ext[m] > 1),
                  key=lambda x: (x[0], t.modes.index(x[1])))
    if not live or live[0][0] != 1 or any(s == 1 and m not in batch for s, m in live):
        return 1
    run = 1
    for s, m in live:
        if m not in batch or s != run:
            break
        run *= ext[m]
    return run


def sector_share(t: TensorInfo, batch: tuple[str, ...], ext: dict[str, int]) -> int:
    """How many batch indices one sector of `t` serves: the elements of a sector along its batch run (1 where
    `t` is not batch-led)."""
    return min(max(1, SECTOR // t.itemsize), batch_run(t, batch, ext))


def _worth(t: TensorInfo, batch: tuple[str, ...], ext: dict[str, int], l2_bytes: int) -> bool:
    size = math.prod(ext[m] for m in t.modes)
    return (size >= MIN_STAGE_ELEMS and size * t.itemsize > L2_SHARE * l2_bytes
            and sector_share(t, batch, ext) > STAGE_PASSES)


def batch_led(plan: Plan) -> bool:
    """Whether D's stride-1 mode (of extent > 1) is a batch mode of `plan` and no m or n mode of D has
    stride 1: the tile then has no contiguous direction in D."""
    return batch_run(plan.problem.d, plan.part.b, dict(plan.problem.extents)) > 1


def pack_batch_led(info: TensorInfo, plan: Plan, ext: dict[str, int], l2_bytes: int = L2_BYTES) -> bool:
    """Whether the schedule packs input `info` of `plan` because it is batch-led (see the module docstring):
    its sector share above STAGE_PASSES and its bytes above L2_SHARE of `l2_bytes` (the target's L2 cache)."""
    return _worth(info, plan.part.b, ext, l2_bytes)


def workspace_order(plan: Plan) -> tuple[str, ...]:
    """The workspace's modes, fastest first: the GEMM dimension (m or n) whose leading mode has the smaller
    stride in D first, then the other, each in the plan's order, then the batch modes in D's stride order.

    The batch modes keep D's relative order, so that those contiguous in D stay contiguous in the workspace
    and the tiled copy moves them as one axis."""
    d = plan.problem.d
    st = d.stride_of()
    m, n, b = plan.part.m, plan.part.n, plan.part.b
    ms, ns = (min((abs(st[x]) for x in s if x in st), default=math.inf) for s in (m, n))
    first, second = (m, n) if ms <= ns else (n, m)
    batch = tuple(sorted((x for x in b if x in st), key=lambda x: (abs(st[x]), d.modes.index(x))))
    return tuple(x for x in first + second + batch if x in st)


def stage_batch_led(plan: Plan, prob: ContractionProblem, ext: dict[str, int], l2_bytes: int = L2_BYTES
                    ) -> TensorInfo | None:
    """The dense workspace a batch-led output is staged through, or None where D is stored in place: D not
    batch-led, a C input (read through the same scattered map: left to the direct path), D smaller than
    MIN_STAGE_ELEMS or than L2_SHARE of `l2_bytes` (the target's L2 cache), or a sector share of STAGE_PASSES
    or less (wide elements, a short batch run).

    The workspace carries D's op (the core applies it; the copy moves finished values)."""
    d = prob.d
    if prob.c is not None or not _worth(d, plan.part.b, ext, l2_bytes):
        return None
    order = workspace_order(plan)
    strides, acc = [], 1
    for x in order:
        strides.append(acc)
        acc *= ext[x]
    return TensorInfo("workspace", order, tuple(strides), d.dtype, 16, d.op)


__all__ = ["batch_led", "batch_run", "pack_batch_led", "sector_share", "stage_batch_led", "workspace_order"]
