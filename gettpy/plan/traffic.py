"""The memory-traffic model of a schedule, and the choice between reading and writing tensors in place and
staging them through dense copies (`restage`).

GETT reads and writes every tensor through its layout map, which is fastest wherever the tile's threads walk
a tensor along a stride-1 run. Where they cannot -- D's stride-1 mode is not the one the tile stores along
(the inputs want another order, and no interleaving of the two fits the extents), or an input is read across
its runs -- each element costs a DRAM access of its own. A memory-bound contraction is that access stream, so
this is its whole time. The alternatives copy the tensor once at close to the copy bandwidth (the tiled
permute kernel, gettpy.kernels.permute, reads along the source's runs and writes along the destination's):

* **stage D**: the core writes a dense workspace whose modes run in the order the inputs give the tile, and
  the tiled copy moves it into D (D's bytes three times instead of once, all in whole sectors);
* **pack an input**: one copy into the order D (or the other input) gives the tile.

`restage` predicts each candidate's time with this model and keeps the cheapest: the schedule as planned unless
another predicts at most `MIN_GAIN` of its time. `make_schedule` runs it for einsum's problems (no C operand):
plans made with a C (`gettpy.plan`) keep the schedule as planned.

The model, per launch (`core_us`): the time is the slowest of the flops at the peak of the instructions the
kernel runs (`_peak`) and the traffic of A, B and D, each at the rate its accesses reach:

* a read of B bytes in vectors of v bytes takes max(B / rate(v), B * w / copy bandwidth), where w is the
  sectors' waste: bytes fetched per byte used (`fetch_ratio`: a stride-1 run of r bytes takes whole 32-byte
  sectors, isolated elements a sector each), and rate(v) is `Target.load_gbs`(v) for the asynchronous copies
  of 4 bytes or more; loads of single 2-byte elements are synchronous, so their rate is the bytes a CTA keeps
  in flight times the CTAs an SM holds: SYNC_CTA_SHARE of the copy bandwidth per CTA per SM, up to
  SYNC_CTAS (measured on the H100: an f16 input read element by element streamed at 0.17 of the copy
  bandwidth with 3.5 CTAs per SM, at 0.03-0.06 with 1.2);
* a write of B bytes takes B * w / copy bandwidth, where runs of whole 32-byte sectors cost their sectors
  and a shorter run of r bytes costs (32 / r) ** PARTIAL_EXP times its bytes (a partial sector is merged
  into DRAM by a read-modify-write, which the L2 cache partly saves where neighbouring tiles fill the rest
  of the sector soon). Calibrated on the H100 where it matters most: outputs of 80-136 MB stored one f16
  element per run took 1.45-3.0 ms (about 64 times their bytes at the copy bandwidth). Runs between that and
  whole sectors are priced by extrapolation, unmeasured, and unevenly (a 16-byte piece at 2.8 times its
  bytes, where TCCG's interleaved outputs stored in such pieces ran at 1.3-1.5x their whole floor; a 30-byte
  run at 1.1 times, a 34-byte one at 1.9 times for its two sectors).

Copies (`copy_us`) move the source's bytes read and the destination's written at the copy bandwidth scaled
by (v / 16) ** COPY_EXP for vectors of v bytes (0.48 for 2-byte elements; the permute kernel measured 0.39 on a
72^4 f16 tensor on the H100). On odd extents the schedules whose packs read 2-byte elements ran 1.1-2.5x the
model's time (the others 1.1-1.3x), so those must predict MIN_GAIN_SCALAR.
"""
from __future__ import annotations

import math
from dataclasses import replace

from ..errors import KernelError
from ..kernels.spec import realign_group
from .heuristic import compute_bound
from .problem import ContractionProblem, TensorInfo
from .target import Target

#: bytes of a DRAM sector (the unit of a read)
SECTOR_BYTES = 32
#: how the cost of a write run shorter than a sector grows: (SECTOR_BYTES / run bytes) ** PARTIAL_EXP per byte
PARTIAL_EXP = 1.5
#: how a copy kernel's rate falls with its vector width: copy bandwidth x (v / 16) ** COPY_EXP
COPY_EXP = 0.35
#: a staged alternative must predict at most this fraction of the schedule as planned; one whose pack reads
#: single elements of under 4 bytes at most MIN_GAIN_SCALAR (see the module docstring)
MIN_GAIN, MIN_GAIN_SCALAR = 0.7, 0.5
#: synchronous element loads: the share of the copy bandwidth one CTA per SM reaches, and the CTAs per SM that
#: add to it (see the module docstring)
SYNC_CTA_SHARE, SYNC_CTAS = 0.05, 4.0
#: realigned rows (OperandSpec.realign) stream at REALIGN_SHARE of the loader rate of 4-byte copies, their words
#: (one more than a task fills) counted: measured on the H100, they ran 0.62-0.81x as fast as 4-byte copies on the
#: same tiles and 1.2-1.8x faster than 2-byte element loads; an input re-read by two or more CTA columns was then
#: read faster from a padded pack (re-read at the copy rate)
REALIGN_SHARE = 0.7
#: flat k-tiles (OperandSpec.flat) stream at FLAT_SHARE of the copy bandwidth: each k-tile's run is scattered to its
#: slots when its stage is consumed; measured on the H100, a long-K mn-km-kn f16 GEMM read flat (rows of 101 and 51
#: values, K = 965,510) ran at 2.5x the copy time of its inputs, a 127 x 80 one at 3.7x
FLAT_SHARE = 0.4
#: the share of an input's re-reads by other CTA rows / columns that miss the L2 cache
REREAD_MISS = 0.25


def _size(t: TensorInfo, ext) -> int:
    return math.prod(ext[m] for m in t.modes)


def leading_run(dm) -> int:
    """Consecutive elements reached by consecutive coordinates of `dm` from a run start: its leading
    stride-1 terms, merged while they continue each other (1 where the fastest term is not stride-1)."""
    if not dm.strides or dm.divisors[0] != 1 or abs(dm.strides[0]) != 1:
        return 1
    run = 1
    for m, st in zip(dm.moduli, dm.strides, strict=True):
        if st != run:
            break
        run *= m
    return min(run, dm.extent)


def fetch_ratio(dm, itemsize: int, span: int) -> float:
    """Bytes fetched per byte used when threads read consecutive coordinates of GEMM dimension map `dm`
    element by element, `span` of them in a tile: a stride-1 run of r elements takes whole SECTOR_BYTES
    sectors, elements s apart share a sector only where s * itemsize < SECTOR_BYTES. inf for a dimension
    with nothing to run along (broadcast, or one coordinate)."""
    if not dm.strides or min(dm.extent, span) <= 1 or dm.divisors[0] != 1:
        return math.inf
    if abs(dm.strides[0]) != 1:
        return min(SECTOR_BYTES, abs(dm.strides[0]) * itemsize) / itemsize
    used = min(leading_run(dm), span) * itemsize
    return SECTOR_BYTES * math.ceil(used / SECTOR_BYTES) / used


def write_ratio(dm, itemsize: int, span: int, run: int = 0) -> float:
    """Bytes of DRAM traffic per byte of D when a tile stores consecutive coordinates of `dm`, `span` of them
    (`run` > 0: the epilogue's stride-1 run, OutputSpec.run): whole sectors for runs of a sector or more,
    (32 / r) ** PARTIAL_EXP for a shorter run of r bytes (see the module docstring)."""
    if not dm.strides or dm.divisors[0] != 1 or abs(dm.strides[0]) != 1:
        used = itemsize
    else:
        used = min(max(run, leading_run(dm)), max(span, run)) * itemsize
    if used >= SECTOR_BYTES:
        return SECTOR_BYTES * math.ceil(used / SECTOR_BYTES) / used
    return (SECTOR_BYTES / used) ** PARTIAL_EXP


def realign_load_us(nbytes: float, g: int, target: Target) -> float:
    """Microseconds for a loader to read `nbytes` of an input as realigned rows of tasks of `g` words
    (OperandSpec.realign, kernels/spec.py's realign_group): g + 1 words a task, at REALIGN_SHARE of the rate
    of 4-byte copies."""
    return target.load_us(nbytes * (g + 1) / g, 4) / REALIGN_SHARE


def _read_us(spec, itemsize: int, nbytes: float, span_mn: int, bk: int, ctas_per_sm: float,
             target: Target) -> float:
    """A read of `nbytes` of an input the kernel loads as OperandSpec `spec` on a tile `span_mn` x `bk`, with
    `ctas_per_sm` CTAs of the grid per SM."""
    if spec.flat:  # (each k-tile one contiguous run, read in aligned 16-byte words)
        return max(target.load_us(nbytes, 16), target.copy_us(nbytes)) / FLAT_SHARE
    dm, span = (spec.k, bk) if spec.kmajor else (spec.mn, span_mn)
    if spec.realign:  # (each smem row a run, read in aligned 16-byte words -- a task's words and one more -- and
        #              shifted into its slots)
        waste = fetch_ratio(dm, itemsize, span)
        return max(realign_load_us(nbytes, realign_group(spec, span_mn, bk), target),
                   target.copy_us(nbytes * (1.0 if waste == math.inf else waste)))
    vbytes = spec.vec * itemsize
    if spec.vs > 1:  # (vectors along a non-leading term: each its own run)
        waste = max(1.0, SECTOR_BYTES / vbytes)
    elif spec.vec > 1:  # (vectors along the leading run)
        waste = fetch_ratio(dm, itemsize, span)
        waste = 1.0 if waste == math.inf else waste
    else:
        waste = fetch_ratio(dm, itemsize, span)
        if waste == math.inf:  # (a broadcast or single coordinate: the other dimension's runs)
            other = spec.mn if spec.kmajor else spec.k
            waste = fetch_ratio(other, itemsize, span_mn if spec.kmajor else bk)
            waste = 1.0 if waste == math.inf else waste
    if vbytes < 4:
        issue = nbytes / (target.copy_gbs * SYNC_CTA_SHARE * min(max(ctas_per_sm, 0.25), SYNC_CTAS) * 1e3)
    else:
        issue = target.load_us(nbytes, vbytes)
    return max(issue, target.copy_us(nbytes * waste))


#: the share of an instruction kind's peak (Target.peak) a GETT launch's flops are priced at
FLOP_SHARE = 0.6


def core_us(spec, target: Target, sm_count: int | None = None) -> float:
    """Predicted microseconds of one GETT launch of KernelSpec `spec` on `target` (its SM count unless
    `sm_count` is given; see the module docstring)."""
    from ..kernels.spec import ITEMSIZE

    t = spec.tile
    M, N, K, nb = spec.M, spec.N, spec.K, spec.batch
    tiles_m, tiles_n = math.ceil(M / t.bm), math.ceil(N / t.bn)
    per_sm = tiles_m * tiles_n * nb / (sm_count or target.sm_count)
    heavy = compute_bound(M, N, K)
    us = 0.0
    for s, size, rereads, span in ((spec.a, M * K * nb, tiles_n, t.bm), (spec.b, K * N * nb, tiles_m, t.bn)):
        nbytes = size * ITEMSIZE[s.dtype] * (1 + (rereads - 1) * REREAD_MISS)
        if s.realign and heavy:
            # (on a compute-bound core, priced as the element loads it replaces, so that the model keeps packing
            #  where a pack measured faster: a pack lets the core run wgmma tiles, which realigned rows -- unswizzled
            #  stages -- cannot; on the H100 a compute-bound MPS update bve-cbvt-cte, f16, read realigned on mma.sync
            #  tiles ran 0.58-0.74x of its pack on wgmma tiles. Where no pack is taken the core still reads realigned)
            s = replace(s, realign=False)
        us += _read_us(s, ITEMSIZE[s.dtype], nbytes, span, t.bk, per_sm, target)
    d = spec.d
    dm, span = (d.n, t.bn) if d.ncontig else (d.m, t.bm)
    us += target.copy_us(M * N * nb * ITEMSIZE[d.dtype] * write_ratio(dm, ITEMSIZE[d.dtype], span, d.run))
    if spec.c is not None and spec.read_c:
        c = spec.c
        cm, cspan = (c.n, t.bn) if c.ncontig else (c.m, t.bm)
        w = fetch_ratio(cm, ITEMSIZE[c.dtype], cspan)
        us += target.copy_us(M * N * nb * ITEMSIZE[c.dtype] * (1.0 if w == math.inf else w))
    flops_us = 2.0 * M * N * K * nb / (max(_peak(spec, target), 1e-3) * FLOP_SHARE * 1e6)
    return max(us, flops_us) + target.launch_us


#: the share of the peak at which a GETT launch computes its padded tiles' flops when nothing else bounds it, by
#: the units it runs on (its best measured on the H100): on tensor cores (a 94 x 114 GEMM over K = 3.4 million,
#: float32 column-major, its 64 x 64 tiles on the float64 tensor cores, 111 GFLOP padded in 2.25-2.48 ms: 0.75-0.82
#: of Target.peak("dmma")), and on the CUDA cores (float32 GEMMs of 17 x 3 to 61 x 17 over K of 1.2-3 million,
#: rows of odd length, on 128 x 16 and 128 x 32 tiles: 0.26-0.38 of Target.peak("simt32"))
PADDED_SHARE = {"tensor": 0.8, "cuda": 0.4}


def padded_flops_us(spec, target: Target) -> float:
    """Microseconds of the flops KernelSpec `spec`'s tiles compute, rows and columns past M and N included (every
    tile computes its whole bm x bn), at PADDED_SHARE of the peak of the units it runs on: the least its launch
    takes where M and N are small against the tile."""
    t = spec.tile
    padded = math.ceil(spec.M / t.bm) * t.bm * math.ceil(spec.N / t.bn) * t.bn
    share = PADDED_SHARE["tensor" if t.mma else "cuda"]
    return 2.0 * padded * spec.K * spec.batch / (max(_peak(spec, target), 1e-3) * share * 1e6)


#: the f16 tensor-core peak's share that the TF32 modes (KernelSpec.tf32 1: TF32, 3: 3xTF32) reach
TF32_SHARE = {1: 0.5, 3: 0.5 / 3}


def _peak(spec, target: Target) -> float:
    """TFLOP/s of the instructions KernelSpec `spec` runs: the f16 tensor cores, their TF32 modes, the f64 tensor
    cores (tf32 == 2) or the FMA units of its accumulate type."""
    if spec.tile.mma:
        if spec.tf32 == 2:
            return target.peak("dmma")
        return target.peak("mma") * TF32_SHARE.get(spec.tf32, 1.0)
    return target.peak("simt64" if spec.compute == "f64" else "simt32")


def copy_us(src: TensorInfo, order: tuple[str, ...], ext: dict[str, int], target: Target) -> float:
    """Predicted microseconds of the tiled copy of `src` into a dense tensor with its modes in `order` (first
    fastest): its bytes read and written at the rates of the copy's vectors."""
    from .align import copy_vectors

    n = _size(src, ext) * src.itemsize
    vr, vw = copy_vectors(src, order, ext)
    rate = lambda v: target.copy_gbs * min(1.0, v / 16) ** COPY_EXP  # noqa: E731
    return n / (rate(vr) * 1e3) + n / (rate(vw) * 1e3) + target.launch_us


def dense_order(t: TensorInfo, ext: dict[str, int]) -> tuple[str, ...] | None:
    """`t`'s modes fastest first where it is dense in that order (its strides those of a packed tensor), else
    None (the tiled copy cannot write it; extent-1 modes go anywhere)."""
    st = t.stride_of()
    order = tuple(sorted(t.modes, key=lambda m: (ext[m] == 1, abs(st[m]), t.modes.index(m))))
    acc = 1
    for m in order:
        if ext[m] == 1:
            continue
        if st[m] != acc:
            return None
        acc *= ext[m]
    return order


def least_us(s, target: Target) -> float:
    """The least a schedule the traffic model does not price (zero-filled packs, split-K, folds) can take: its
    tensors' bytes once, each packed input's bytes read and written once more, at the copy bandwidth, and a
    launch for the core and each pack."""
    p, ext = s.problem, dict(s.problem.extents)
    size = lambda t: math.prod(ext[m] for m in t.modes) * t.itemsize  # noqa: E731
    packs = [t for t, pk in ((p.a, s.pack_a), (p.b, s.pack_b)) if pk is not None]
    nbytes = size(p.a) + size(p.b) + size(p.d) + 2 * sum(size(t) for t in packs)
    return target.copy_us(nbytes) + target.launch_us * (1 + len(packs))


def schedule_us(s, target: Target, sm_count: int) -> float | None:
    """Predicted microseconds of a schedule of packs, one core launch and a staged output's copy; None for
    the stagings this model does not price (split-K, tails, folds, zero-filled packs)."""
    from .tiles import kernel_spec

    if s.split_mode is not None or s.tail is not None or s.inner is not None or s.pad_ext:
        return None
    p, ext = s.problem, dict(s.problem.extents)
    us = 0.0
    for src, pk in ((p.a, s.pack_a), (p.b, s.pack_b)):
        if pk is not None:
            us += copy_us(src, pk.modes, ext, target)
    if s.stage_d is not None:
        order = dense_order(p.d, ext)
        if order is None:
            return None
        us += copy_us(s.stage_d, order, ext, target)
    spec = kernel_spec(s.core, False, sm_count=sm_count, wgmma=target.wgmma)
    return us + core_us(spec, target, sm_count)


def _sorted_by(modes, t: TensorInfo, ext) -> tuple[str, ...]:
    """`modes` by increasing |stride| in `t` (modes `t` lacks last, in their given order)."""
    st = t.stride_of()
    return tuple(sorted(modes, key=lambda m: (m not in st, abs(st.get(m, 0)), modes.index(m))))


def candidates(problem: ContractionProblem, ext: dict[str, int]):
    """The staged alternatives of a problem: (kind, restaged problem, the staged tensor) with kind "d" (D
    written as a dense workspace whose modes run in the inputs' orders, each GEMM dimension's modes by its
    input's strides, either dimension first) or "a" / "b" (that input packed in D's order of its free modes,
    its summed modes in the other input's order, either group first)."""
    from .problem import packed

    a, b, d = problem.a, problem.b, problem.d
    free_a = tuple(m for m in a.modes if m in d.modes and m not in b.modes)
    free_b = tuple(m for m in b.modes if m in d.modes and m not in a.modes)
    batch = tuple(m for m in d.modes if m in a.modes and m in b.modes)
    summed = tuple(m for m in dict.fromkeys(a.modes + b.modes) if m not in d.modes)
    out = []
    if dense_order(d, ext) is not None:
        m_ord, n_ord = _sorted_by(free_a, a, ext), _sorted_by(free_b, b, ext)
        bat = _sorted_by(batch, a, ext)
        for order in (m_ord + n_ord + bat, n_ord + m_ord + bat):
            if order != dense_order(d, ext):
                w = packed(replace(d, name="workspace"), order, ext)
                out.append(("d", replace(problem, d=w), w))
    for name, x, other, free in (("a", a, b, free_a), ("b", b, a, free_b)):
        ks = _sorted_by(tuple(m for m in summed if m in x.modes), other, ext)
        fs = _sorted_by(free, d, ext)
        bs = _sorted_by(tuple(m for m in batch if m in x.modes), d, ext)
        for order in (fs + ks + bs, ks + fs + bs):
            if order != dense_order(x, ext):
                px = packed(x, order, ext)
                out.append((name, replace(problem, **{name: px}), px))
    return out


def staged_schedule(problem: ContractionProblem, kind: str, alt: ContractionProblem, staged: TensorInfo, make):
    """The schedule of `problem` that stages one tensor (a `candidates` entry: kind, restaged problem, staged
    tensor), around `make(alt)`'s core (a make_schedule without this pass); None where that schedule stages
    something this pass cannot compose with (its own staged output, split-K, a fold, zero-filled packs, or a
    second pack of the tensor already packed)."""
    from .schedule import Schedule

    s = make(alt)
    if s.stage_d is not None or s.split_mode is not None or s.inner is not None or s.pad_ext:
        return None
    if kind == "d":
        return Schedule(problem, s.core, s.pack_a, s.pack_b, staged)
    if (s.pack_a if kind == "a" else s.pack_b) is not None:
        return None  # (packed again: the first pack's order did not serve the core)
    packs = {"pack_a": s.pack_a, "pack_b": s.pack_b, f"pack_{kind}": staged}
    return Schedule(problem, s.core, **packs)


def restage(problem: ContractionProblem, planned, make, target: Target, sm_count: int):
    """The cheapest of schedule `planned` and its staged alternatives (`candidates`, each scheduled by
    `staged_schedule` around `make`, a make_schedule without this pass), by `schedule_us`; `planned` unless an
    alternative predicts at most MIN_GAIN (MIN_GAIN_SCALAR) of its time."""
    from .align import copy_vectors

    ext = dict(problem.extents)
    base = schedule_us(planned, target, sm_count)
    if base is None:
        return planned
    best, best_us = planned, base
    for kind, alt, staged in candidates(problem, ext):
        try:
            s = staged_schedule(problem, kind, alt, staged, make)
            us = None if s is None else schedule_us(s, target, sm_count)
        except KernelError:  # (a staging whose core the kernel refuses is no alternative)
            continue
        scalar = kind != "d" and copy_vectors(getattr(problem, kind), staged.modes, ext)[0] < 4
        if us is not None and us <= (MIN_GAIN_SCALAR if scalar else MIN_GAIN) * base and us < best_us:
            best, best_us = s, us
    return best


__all__ = ["FLAT_SHARE", "FLOP_SHARE", "MIN_GAIN", "MIN_GAIN_SCALAR", "PADDED_SHARE", "REALIGN_SHARE", "copy_us",
           "core_us", "dense_order", "padded_flops_us", "fetch_ratio", "least_us", "leading_run", "realign_load_us",
           "restage", "schedule_us", "staged_schedule", "write_ratio"]
