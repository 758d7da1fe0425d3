"""Long-K GEMMs on the long-K kernel (gettpy.kernels.longk), where its model says it beats the schedule of GETT tiles.

The kernel takes a contraction of f16, bf16 or float32 inputs with no batch mode whose m, n and k modes each merge
into one axis of every input, one of an input's two axes of stride 1 (k-major or m / n-major, the other stride
anything).
It reads every input at LONGK_SHARE of the copy bandwidth whatever the alignment of its rows, where the GETT
loaders read an input of odd leading dimension in 2- or 4-byte pieces (or pack it first), so it is priced, not
ruled in:

* **its time** (`longk_us`): each input's bytes times the CTA columns (rows) that read it, at LONGK_SHARE of the
  copy bandwidth; or, where they take longer, the padded tile's flops at MMA_SHARE of the tensor-core peak (float32:
  FMA_SHARE of the CUDA cores' float32 peak, or DMMA_SHARE of the float64 tensor cores' on their tiles), or a
  slice's steps at the tile's measured step time (`Candidate`; small M + N: few bytes a step); plus the workspace of
  partial sums written and read back and two launches.
* **the schedule's**: plan/traffic.py's price of its core launch and its packs (`planned_us`), never below the
  least its bytes can cost (`traffic.least_us`).

The tile is the candidate of least predicted time (`CANDIDATES`) among those that cover M x N in at most MAX_TILES
tiles; the slices fill the CTAs the SMs hold at once (one wave: each CTA streams one slice), each at least MIN_STEPS
steps of the k loop.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..dtypes import ITEMSIZE
from ..errors import KernelError
from ..kernels.longk import DTYPES, LongKLayout, LongKTile, kt, smem_bytes
from ..layouts.descriptor import merge_axes
from .problem import ContractionProblem
from .target import Target

#: the share of the copy bandwidth at which the long-K kernel streams its inputs, by their item size: 2-byte inputs
#: measured on the H100 over 12 long-K shapes (M, N 29-127, K 0.5-3.4 million, f16, both orders) at 1.29-1.76x the
#: time of copying the inputs' bytes once, its workspace's sum included; float32 at 0.86-0.95 of the copy bandwidth
#: (bytes read, re-reads by tile rows and columns counted) where the bytes bound the float64-mma tiles (M x N of
#: 1155 x 1, 577 x 3 and 61 x 17)
LONGK_SHARE = {2: 0.7, 4: 0.85}
#: the share of the tensor cores' peak (Target.peak("mma")) the kernel's mma.sync tiles reach on padded flops
MMA_SHARE = 0.5
#: the share of the CUDA cores' float32 peak (Target.peak("simt32")) its FMA tiles reach on padded flops (measured on
#: the H100: 0.46 on a 32 x 32 tile of 17 x 3 values, 0.54-0.56 on 96 x 64 tiles of 96 x 33 and 94 x 114)
FMA_SHARE = 0.55
#: the share of the float64 tensor cores' peak (Target.peak("dmma")) its float64-mma tiles reach on padded flops
#: (measured on the H100: 0.79 on 96 x 64 tiles of a 94 x 114 GEMM read m / n-major, K = 3.4 million)
DMMA_SHARE = 0.75
#: the fewest steps of the k loop a slice takes (shorter ones: the workspace outweighs the inputs' stream)
MIN_STEPS = 4
#: the long-K kernel must predict at most this fraction of the planned schedule's time
LONGK_GAIN = 1.0
#: the most CTA tiles of M x N it takes: up to 10 measured (a matrix-vector product of 1155 rows on 128 x 8 tiles,
#: each input read by one tile column or row); a larger M x N is a GEMM whose tiles reuse their inputs, where the
#: GETT tiles are made for it (longk_us prices the re-reads by tile rows and columns either way)
MAX_TILES = 16


@dataclass(frozen=True, slots=True)
class Candidate:
    """A tile the planner may take for inputs of `itemsize` bytes and the least time of one step of its k loop,
    microseconds: with both inputs read k-major (`step_k`) and with either read m / n-major (`step_mn`; None: not
    taken there, its registers spill). A stage's copies land NS - 1 steps after they are issued and every step
    multiplies the whole tile however few of its rows hold values, so where M + N is small the steps, not the bytes,
    take the time."""

    tile: LongKTile
    step_k: float
    step_mn: float | None
    itemsize: int = 2


#: the candidate tiles (registers capped for the CTAs an SM holds, no spills: tests/compile), their step times
#: measured on the H100 on shapes where the steps bound the time (M x N of 17 x 3 to 96 x 33, k-major and m-major;
#: `python -m tccg.probes.longk` repeats the measurement).
#: 2-byte inputs (mma.sync, 64 values of k a step): 64 x 64 on 4 warps, three CTAs an SM, for extents up to 64; 96-
#: and 128-wide tiles on 8 warps, two an SM; one 96 x 128 tile of one stage in flight for k-major inputs (an input
#: read once where two 96 x 64 tiles read it twice: 1.37x faster on a 94 x 114 GEMM, K = 3.4 million).
#: float32 inputs (32 values of k a step), FMA on the CUDA cores (float32 sums; warp tiles 32 columns wide): 32 x 32
#: and 64 x 32 tiles on 2 warps, six and four CTAs an SM, for the smallest M and N (17 x 3 to 61 x 17: 1.4-2.7x
#: faster than torch.einsum there), the wider ones on 4 to 8 warps (64 x 64: three CTAs an SM, 96 x 128: one, the
#: others two); 64 x 96, 64 x 128 and 96 x 128 with the step times they showed before each value was read at its own
#: offset (the others ran 5-20% faster since: upper bounds).
#: float32 inputs on the float64 tensor cores (float64 sums, as the GETT core's float32 tiles; warp tiles of 16 x 8
#: blocks), from 128 x 8 on 4 warps (a matrix-vector product) and 32 x 16 on 2 for the narrowest N to 128 x 64 on 8:
#: steps of 0.7-3.1 us on the H100 (the larger where M and N fill the tile, k-major 96 x 64 the slowest), 1.3-2.2x
#: faster than the FMA tile of the same size; 17 x 3 over K = 3 million in 0.11 ms on 32 x 16 (FMA 0.24 ms).
CANDIDATES = (Candidate(LongKTile(64, 64, 2, 2, 2, 3), 1.8, 2.5), Candidate(LongKTile(96, 64, 2, 4, 3, 2), 1.5, 2.3),
              Candidate(LongKTile(64, 96, 4, 2, 3, 2), 1.5, 2.3), Candidate(LongKTile(128, 64, 4, 2, 3, 2), 1.5, 2.3),
              Candidate(LongKTile(64, 128, 2, 4, 3, 2), 1.5, 2.3), Candidate(LongKTile(96, 128, 2, 4, 2, 2), 2.3, None),
              Candidate(LongKTile(32, 32, 2, 1, 3, 6), 2.5, 2.5, 4),
              Candidate(LongKTile(64, 32, 2, 1, 3, 4), 3.2, 2.7, 4),
              Candidate(LongKTile(128, 32, 4, 1, 3, 2), 2.6, 2.6, 4),
              Candidate(LongKTile(64, 64, 2, 2, 3, 3), 3.4, 3.5, 4),
              Candidate(LongKTile(96, 64, 3, 2, 3, 2), 3.6, 3.6, 4),
              Candidate(LongKTile(128, 64, 4, 2, 3, 2), 4.0, 4.1, 4),
              Candidate(LongKTile(64, 96, 2, 3, 3, 2), 3.9, 4.3, 4),
              Candidate(LongKTile(64, 128, 2, 4, 3, 2), 4.2, 4.6, 4),
              Candidate(LongKTile(96, 128, 3, 2, 3, 1), 4.1, 4.5, 4),
              Candidate(LongKTile(128, 8, 4, 1, 3, 3, True), 0.8, 1.3, 4),
              Candidate(LongKTile(32, 16, 2, 1, 3, 6, True), 1.1, 1.1, 4),
              Candidate(LongKTile(32, 32, 2, 1, 3, 6, True), 1.4, 1.4, 4),
              Candidate(LongKTile(64, 32, 2, 1, 3, 4, True), 1.9, 1.9, 4),
              Candidate(LongKTile(128, 32, 4, 1, 3, 2, True), 1.8, 1.75, 4),
              Candidate(LongKTile(64, 64, 2, 2, 3, 2, True), 1.9, 1.75, 4),
              Candidate(LongKTile(96, 64, 3, 2, 3, 2, True), 3.0, 2.2, 4),
              Candidate(LongKTile(128, 64, 4, 2, 3, 1, True), 2.0, 1.85, 4))

#: a step's time for a tile that is no candidate (a caller's own)
STEP_US = 2.3


@dataclass(frozen=True, slots=True)
class LongKPlan:
    """A contraction on the long-K kernel: its launch and D's modes as the workspace's m and n indices run them.

    Attributes: layout; m_modes, n_modes: the m (n) modes slowest first, as A's (B's) strides order them (the
    kernel's m index is their flat index; extent-1 modes last).
    """

    layout: LongKLayout
    m_modes: tuple[str, ...]
    n_modes: tuple[str, ...]


def _axis(modes, ext, strides) -> tuple[tuple[str, ...], list[int]] | None:
    """`modes` slowest first by their first tensor's stride and, where every tensor steps through them as one axis,
    that axis's stride in each tensor (1 for an axis of one element), else None."""
    big = sorted((m for m in modes if ext[m] > 1), key=lambda m: -abs(strides[0][m]))
    order = tuple(big) + tuple(m for m in modes if ext[m] == 1)
    fe, fs = merge_axes([ext[m] for m in reversed(big)], [tuple(st[m] for m in reversed(big)) for st in strides])
    if len(fe) > 1:
        return None
    return order, [s[0] if fe else 1 for s in fs]


def _read(mn_stride: int, k_stride: int, extent: int) -> tuple[bool, int] | None:
    """(k-major, leading dimension) of an input whose m / n axis has `mn_stride` and k axis `k_stride`."""
    if k_stride == 1 and mn_stride >= 0:
        return True, mn_stride if extent > 1 else 0
    if mn_stride == 1 and k_stride > 0:
        return False, k_stride
    return None


def longk_geometry(problem: ContractionProblem):
    """(M, N, K, (a_kmajor, a_ld), (b_kmajor, b_ld), m_modes, n_modes) of `problem` on the long-K kernel, or None
    where the kernel does not take it (a semiring, ops on the inputs, types other than f16 / bf16 / float32
    into float32 sums, a pointer not aligned to its type, a batch mode, a mode of one operand only, axes that do
    not merge, no unit stride)."""
    p = problem
    if p.semiring is not None or p.compute != "f32" or p.a.dtype not in DTYPES or p.b.dtype != p.a.dtype:
        return None
    if min(p.a.align, p.b.align) < ITEMSIZE[p.a.dtype]:
        return None  # (a pointer between values: the kernel's reads take whole values)
    if not (p.a.op.is_identity and p.b.op.is_identity):
        return None
    ext = dict(p.extents)
    if any(e == 0 for e in ext.values()):
        return None
    sa, sb = p.a.stride_of(), p.b.stride_of()
    m = [x for x in p.d.modes if x in sa and x not in sb]
    n = [x for x in p.d.modes if x in sb and x not in sa]
    k = [x for x in sa if x in sb and x not in p.d.modes]
    if any(ext[x] > 1 for x in set(p.a.modes + p.b.modes + p.d.modes) - set(m + n + k)):
        return None  # (a batch mode, or a mode of one tensor only)
    ma, nb, kab = _axis(m, ext, [sa]), _axis(n, ext, [sb]), _axis(k, ext, [sa, sb])
    if ma is None or nb is None or kab is None:
        return None
    M, N, K = (math.prod(ext[x] for x in modes) for modes in (m, n, k))
    ra, rb = _read(ma[1][0], kab[1][0], M), _read(nb[1][0], kab[1][1], N)
    if ra is None or rb is None:
        return None
    # (D's modes of extent 1 that are neither m nor n -- a batch mode of one index -- run with the m modes)
    ones = tuple(x for x in p.d.modes if x not in m and x not in n)
    return M, N, K, ra, rb, ma[0] + ones, nb[0]


def candidate_layout(dtype, M, N, K, ra, rb, tile: LongKTile, target: Target,
                     max_tiles: int = MAX_TILES) -> LongKLayout | None:
    """The launch of `tile` on inputs read as `ra`, `rb` ((k-major, leading dimension) each): slices for one wave
    of the CTAs the SMs hold, each at least MIN_STEPS steps (None: the tile does not fit the target, or M x N takes
    more than `max_tiles` tiles)."""
    smem, tiles = smem_bytes(tile, ra[0], rb[0], dtype), math.ceil(M / tile.bm) * math.ceil(N / tile.bn)
    if smem > target.smem_per_block or tiles > max_tiles:
        return None
    ctas = tile.min_blocks if smem * tile.min_blocks <= target.smem_per_sm - 2048 else 1
    slices = max(1, ctas * target.sm_count // tiles)
    steps = max(MIN_STEPS, math.ceil(K / kt(dtype) / slices))
    return LongKLayout(dtype, M, N, K, ra[0], ra[1], rb[0], rb[1], tile, steps * kt(dtype))


def _step_us(lay: LongKLayout) -> float:
    """The least time of a step of `lay`'s k loop (its tile's candidate; inf where the candidate is not for its
    reads)."""
    es = ITEMSIZE[lay.dtype]
    c = next((c for c in CANDIDATES if c.tile == lay.tile and c.itemsize == es), None)
    if c is None:
        return STEP_US
    step = c.step_k if lay.a_kmajor and lay.b_kmajor else c.step_mn
    return math.inf if step is None else step


def longk_us(lay: LongKLayout, target: Target) -> float:
    """Predicted microseconds of the long-K kernel of `lay` and its workspace's sum (see the module docstring)."""
    t = lay.tile
    tm, tn = math.ceil(lay.M / t.bm), math.ceil(lay.N / t.bn)
    reads = ITEMSIZE[lay.dtype] * lay.K * (lay.M * tn + lay.N * tm)
    stream = reads / (target.copy_gbs * 1e3 * LONGK_SHARE[ITEMSIZE[lay.dtype]])
    if lay.dtype != "f32":
        peak = target.peak("mma") * MMA_SHARE
    else:
        peak = target.peak("dmma") * DMMA_SHARE if t.f64_mma else target.peak("simt32") * FMA_SHARE
    flops = 2.0 * tm * t.bm * tn * t.bn * lay.K / (max(peak, 1e-3) * 1e6)
    steps = lay.slice // lay.kt * _step_us(lay)
    workspace = target.copy_us(2 * (8 if t.f64_mma else 4) * lay.slices * lay.M * lay.N)
    return max(stream, flops, steps) + workspace + 2 * target.launch_us


def longk_plan(problem: ContractionProblem, target: Target, f64_sums: bool = False,
               f64_cores: bool = True) -> LongKPlan | None:
    """The long-K plan of `problem` on its tile of least predicted time, or None where the kernel does not take it
    or no slice would be MIN_STEPS steps long (K too short to stream). `f64_sums`: float32 inputs only on the tiles
    of float64 sums (the float64 tensor cores); those tiles only where the target has them and `f64_cores` (as
    make_schedule's) allows them."""
    g = longk_geometry(problem)
    if g is None:
        return None
    M, N, K, ra, rb, m_modes, n_modes = g
    dt = problem.a.dtype
    if K < MIN_STEPS * kt(dt):
        return None
    dmma = target.dmma and f64_cores
    lays = [x for x in (candidate_layout(dt, M, N, K, ra, rb, c.tile, target) for c in CANDIDATES
                        if c.itemsize == ITEMSIZE[dt] and (c.step_mn is not None or (ra[0] and rb[0]))
                        and (dmma if c.tile.f64_mma else not f64_sums))
            if x is not None]
    if not lays:
        return None
    return LongKPlan(min(lays, key=lambda x: longk_us(x, target)), m_modes, n_modes)


def _core_spec(s, target: Target, sm_count: int):
    """The KernelSpec of schedule `s`'s core launch (KernelError where the model cannot specialise it)."""
    from .tiles import kernel_spec

    return kernel_spec(s.core, False, sm_count=sm_count, wgmma=target.wgmma)


def planned_us(s, target: Target, sm_count: int, spec=None) -> float:
    """Predicted microseconds of schedule `s` of GETT tiles: its core launch (`spec`, else worked out) or, where
    more, the flops of its padded tiles (a small M x N pays for whole tiles, as the long-K kernel's do), and its
    packs (plan/traffic.py's prices), never below the least its bytes can cost."""
    from .traffic import copy_us, core_us, least_us, padded_flops_us

    p = s.problem
    spec = spec if spec is not None else _core_spec(s, target, sm_count)
    us = max(core_us(spec, target, sm_count), padded_flops_us(spec, target) + target.launch_us)
    for src, pk in ((p.a, s.pack_a), (p.b, s.pack_b)):
        if pk is not None:
            us += copy_us(src, pk.modes, dict(p.extents), target)
    return max(us, least_us(s, target))


def choose_longk(problem: ContractionProblem, planned, target: Target, sm_count: int,
                 f64_cores: bool = True) -> LongKPlan | None:
    """The long-K plan of `problem` where it predicts at most LONGK_GAIN of schedule `planned`'s time and sums as
    accurately, else None: float32 inputs go to its float32 sums only where the GETT core sums in float32 too; where
    that core runs on the float64 tensor cores (float64 sums, as gettpy.einsum documents), to its float64 ones
    (`f64_cores`: as make_schedule's; False, no float64-mma tile)."""
    try:
        spec = _core_spec(planned, target, sm_count)
    except KernelError:  # (a core the model cannot specialise: the schedule stays as planned)
        return None
    lk = longk_plan(problem, target, f64_sums=spec.tf32 == 2, f64_cores=f64_cores)
    if lk is None:
        return None
    return lk if longk_us(lk.layout, target) <= LONGK_GAIN * planned_us(planned, target, sm_count, spec) else None


__all__ = ["CANDIDATES", "LONGK_GAIN", "LONGK_SHARE", "MAX_TILES", "STEP_US", "Candidate", "LongKPlan",
           "candidate_layout", "choose_longk", "longk_geometry", "longk_plan", "longk_us", "planned_us"]
