"""Batch modes in the output's fastest place: stage D through a workspace led by a GEMM dimension.

The GETT kernel runs one batch index per CTA (the batch modes are a grid dimension) and stores its tile along
the tile's m or n modes. Where D's stride-1 mode is a batch mode (e.g. scores "zhqs" of column-major tensors,
or a batched GEMM "mnb" in row-major order), no mode of the tile is contiguous in D: every element the tile
stores is a lone 2- or 4-byte write into a 32-byte sector whose other elements belong to other batch indices,
that is to CTAs that run at other times. Each sector is then written piecewise, and partly written sectors
leave the L2 cache before they are whole (a read-modify-write in DRAM): the output's traffic grows up to
`SECTOR / itemsize` times its size (16x for 2-byte values).

Staging is the cheaper form: the core writes a dense workspace whose fastest modes are the tile's own (its
stores then move whole vectors or at least coalesced runs), and the schedule's tiled copy (backends/staged.py,
kernels/permute.py) moves it into D, reading and writing whole sectors on both sides. That moves D's bytes
three times (written by the core, read and written by the copy), so it pays wherever a sector holds more than
`STAGE_PASSES` elements, i.e. for every element of 8 bytes or less, and where D is too large for its partly
written sectors to stay in the L2 cache until the other batch indices complete them (more than
`L2_SHARE` of it). Measured on the H100 (f16): a batch-led output of 9 MB stored in place ran as fast as
torch.einsum's transpose-and-GEMM; one of 1.4 GB took 23x as long. The inputs are unaffected (an input whose
stride-1 mode is a batch mode is gathered, and the schedule's pack rule already copies it into a k-major
layout when it is re-read).
"""
from __future__ import annotations

import math

from .plan import Plan
from .problem import ContractionProblem, TensorInfo

#: bytes of a DRAM / L2 sector: the unit a lone element's store costs
SECTOR = 32
#: passes over D's bytes that staging costs (the core's write, the copy's read and write)
STAGE_PASSES = 3
#: outputs smaller than this (elements) are stored in place (the copy costs a launch)
MIN_STAGE_ELEMS = 4096
#: the L2 cache's size where the target does not give one (an H100's), and the share of it a batch-led D may
#: take and still be stored in place (the rest holds the inputs' tiles)
L2_BYTES = 50 << 20
L2_SHARE = 0.25


def batch_led(plan: Plan) -> bool:
    """Whether D's stride-1 mode (of extent > 1) is a batch mode of `plan` and no m or n mode of D has
    stride 1: the tile then has no contiguous direction in D."""
    d = plan.problem.d
    ext = dict(plan.problem.extents)
    live = [(abs(s), m) for m, s in zip(d.modes, d.strides, strict=True) if ext[m] > 1]
    if not live:
        return False
    unit = [m for s, m in live if s == 1]
    if not unit or any(m not in plan.part.b for m in unit):
        return False
    mn = set(plan.part.m) | set(plan.part.n)
    return all(s != 1 for s, m in live if m in mn)


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
    """The dense workspace a batch-led output (`batch_led`) is staged through, or None where D is stored in
    place: D not batch-led, a C input (read through the same scattered map: left to the direct path), D
    smaller than MIN_STAGE_ELEMS or than L2_SHARE of `l2_bytes` (the target's L2 cache), or elements so wide
    that a sector holds STAGE_PASSES of them or fewer.

    The workspace carries D's op (the core applies it; the copy moves finished values)."""
    d = prob.d
    size = math.prod(ext[m] for m in d.modes)
    if (prob.c is not None or size < MIN_STAGE_ELEMS or size * d.itemsize <= L2_SHARE * l2_bytes
            or SECTOR // d.itemsize <= STAGE_PASSES):
        return None
    if not batch_led(plan):
        return None
    order = workspace_order(plan)
    strides, acc = [], 1
    for x in order:
        strides.append(acc)
        acc *= ext[x]
    return TensorInfo("workspace", order, tuple(strides), d.dtype, 16, d.op)


__all__ = ["batch_led", "stage_batch_led", "workspace_order"]
