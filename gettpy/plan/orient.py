"""The orientation of a TMA-fed core: which of the GEMM's two sides is the kernel's M (`traded_core`).

A GEMM can run either way round (D^T = B^T A^T): the partition (plan/partition.py) puts D's stride-1 modes on
the kernel's N, where the tile stores along its rows. For a compute-bound core on a TMA-fed warp-specialised tile
(plan/passes.py `tma_tile`) the orientation also decides the tile's waves: the TMA shapes are not square
(128 x 208..256, 256 x 160), a cluster of two CTAs needs an even number of tile rows, and the rows are counted on
M. So a GEMM of 5136 x 5120 takes 128 x 240 tiles in 41 rows, no cluster (7 waves of 132 SMs), and the same GEMM
traded takes 256 x 160 tiles in 20 rows, clusters of two (5 waves).

`traded_core` prices both orientations' TMA tiles with `_tma_cost` (waves times one tile's work and loads) and keeps the
cheaper. The orientation that stores D along n may take the chunked persistent epilogue (plan/passes.py
`_chunked_epilogue`, measured at 0.92-0.95x of the time of one-tile CTAs), priced at CHUNKED_GAIN of its cost,
so that the partition's orientation is left only where the other one saves more than the epilogue gives. Measured
on the H100 (f16, 5136 x 5120 x 5136, D stored along the 5120 side): the partition's 128 x 240 tile took 0.453 ms,
the traded 256 x 160 tile in clusters of two 0.368 ms. Only a core that writes D in place in one launch is traded
(its inputs read in place or packed); a workspace's order was planned around the partition's orientation.
"""
from __future__ import annotations

from ..errors import KernelError
from ..kernels.spec import MMA_DTYPES
from .heuristic import _tma_cost
from .plan import Plan, make_plan
from .target import Target
from .tiles import kernel_spec

#: the chunked persistent epilogue's share of a TMA tile's time (0.92-0.95 measured, plan/passes.py
#: `_chunked_epilogue`)
CHUNKED_GAIN = 0.93


def tma_core_cost(spec, sm_count: int) -> float | None:
    """The predicted time of a core on a TMA-fed tile (arbitrary units: `_tma_cost` on `sm_count` SMs, times
    CHUNKED_GAIN where its epilogue is chunked), or None where its tile is not a TMA one."""
    t = spec.tile
    if not t.tma:
        return None
    cost = _tma_cost(spec.M, spec.N, max(spec.batch, 1), t.bm, t.bn, t.cluster, sm_count)
    return cost * (CHUNKED_GAIN if t.chunked else 1.0)


def traded_core(s, target: Target, sm_count: int) -> Plan | None:
    """The core of schedule `s` traded (the other operand as the kernel's A) where both run on TMA tiles and the
    traded one's `tma_core_cost` is lower, else None. A core that writes D in place, in one launch, is traded (its
    inputs in place or packed: packs keep their order, which either orientation reads); not one that writes a
    workspace (staged D, split-K, a fold), nor a schedule of the direct or long-K kernel."""
    if (s.stage_d is not None or s.split_mode is not None or s.tail is not None or s.inner is not None
            or s.own_kernel or not target.tma):
        return None
    problem = s.core.problem
    if problem.semiring is not None or any(t.dtype not in MMA_DTYPES for t in (problem.a, problem.b)):
        return None  # (the TMA tiles take 2-byte floating inputs and the ordinary sum)
    read_c = problem.c is not None

    def cost(plan):
        return tma_core_cost(kernel_spec(plan, read_c, sm_count=sm_count, wgmma=target.wgmma), sm_count)

    try:
        here = cost(s.core)
        if here is None:
            return None
        traded = make_plan(problem, s.core.part.traded())
        there = cost(traded)
    except KernelError:  # (a layout or type no GPU tile takes this way round: the schedule as planned)
        return None
    return traded if there is not None and there < here else None
