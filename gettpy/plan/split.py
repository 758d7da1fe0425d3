"""Split-K in a schedule: whether a GEMM's K is cut into slices, along which k mode, into how many, on which tile.

A GEMM whose grid leaves the machine idle is cut over one of its k modes into S slices, a new batch mode of the
core, whose partial sums land in an accumulate-type workspace that the schedule sums afterwards
(plan/schedule.py's `Schedule.split_mode`). Three decisions, each from a model of the target:

* `divisor_split`: a long K over a small output, S a divisor of the cut mode's extent. The f32 simt cores size
  S and their tile by a model of FMAs and workspace traffic (`simt_slices`); the tensor-core cores take enough
  slices for two waves of the widest tile.
* `remainder_cut`: the same where no divisor gives good slices, or plan/splitk.py's model prices the divisor
  split higher: the first S x q values of the mode in S slices, the rest a tail schedule.
* `wave_split`: a compute-bound grid of a few waves whose last wave leaves SMs idle, where plan/splitk.py's
  `wave_model_us` predicts enough gain.

A cut never leaves an input's k runs shorter than MIN_RUN or its 16-byte vectors split (`keeps_runs`), and the
slices of a stride-1 mode are whole vectors, so every slice starts aligned.
"""
from __future__ import annotations

import math
from dataclasses import replace

from ..dtypes import ITEMSIZE as ITEMSIZE_OF
from ..dtypes import accumulate_type
from ..errors import KernelError
from ..kernels.spec import TileConfig
from .heuristic import plan_tile
from .plan import Plan, make_plan
from .problem import ContractionProblem, TensorInfo, packed
from .splitk import MAX_SLICES, MIN_RUN, SplitTile, best_kept, best_slices, choose_cut, split_model_us, wave_model_us
from .target import Target
from .tiles import _stream_k, kernel_spec, short_side, tf32_mode
from .traffic import _peak

#: split-K only when the plain grid has fewer CTAs than this fraction of the SMs ...
SPLIT_MAX_WAVE = 0.5
#: ... and each split keeps at least this many k
SPLIT_MIN_K = 512

#: ... the slices are counted for tiles this wide (the widest heuristic tile) ...
SPLIT_TILE = 128

#: a compute-bound grid of fewer than WAVE_SPLIT_MAX_WAVES waves of the SMs is cut into k slices where
#: plan/splitk.py's `wave_model_us` predicts at most WAVE_SPLIT_GAIN of its unsplit time (`wave_split`)
WAVE_SPLIT_MAX_WAVES = 4
WAVE_SPLIT_GAIN = 0.85

#: ... and the slices of a remainder split are counted at most this many times (first on the plain plan's tile,
#: then again on each split core's)
SLICE_ROUNDS = 3

SPLIT_SUFFIX = "~split"
#: the f32 (simt) split core's candidate tiles, unless the plain tile is a short-side one (kept):
#: (bm, bn, bk, stages, tm, tn, CTAs per SM, FMA cost). Measured on the H100 for outputs of about 300 x 300
#: over K ~ 10^5: 128 x 64 about 1.27x faster than 128 x 128; 128 threads of 8 x 8, 3 CTAs per SM and 4
#: stages 1.09x faster than 256 of 8 x 4; 64 x 64 of 64 threads, 6 CTAs per SM, 1.08x faster again where
#: it pads less (M, N of 296 / 312 padded to 320, not 384); its FMAs cost about 10% more in the model (the
#: measured times over it)
SIMT_SPLIT_TILES = ((128, 64, 16, 4, 8, 8, 3, 1.0), (64, 64, 16, 3, 8, 8, 6, 1.10))
#: the f32 split core on an sm_90 device: the f64 tensor cores (tiles.DMMA_TILE's path) on 64 x 64 tiles of
#: 4 warps of 32 x 32, 3 CTAs per SM, over at least SPLIT_DMMA_MIN_WAVES waves of those slots (H100,
#: packs + core + sum of outputs of about 300 x 300: up to 1.3x faster than the simt split; fewer than 3
#: waves, bk 32 / 3 stages and 128 x 64 / 64 x 128 tiles slower)
DMMA_SPLIT_TILE = (64, 64, 16, 4, 32, 32, 3)
SPLIT_DMMA_MIN_WAVES = 3
#: stream-K on a split core (its CTA slots as stream-K CTAs, `tiles._stream_k`) only where this many
#: waves of tiles come first (measured on the H100: 2.3 waves 1.09x faster with stream-K; 1.6 waves, where
#: every tile is shared, 1.18x slower)
SPLIT_SK_MIN_WAVES = 2
#: the simt split's time model (`simt_slices`): f32 FMAs per microsecond of one SM (about 2/3 of 128 per
#: clock at 1.75 GHz), bytes per microsecond of the workspace's traffic (the H100's copy bandwidth), the
#: fewest waves a split grid may have, and how close to the best time fewer slices may be
SIMT_FMA_PER_US = 1.5e5
SPLIT_BYTES_PER_US = 2.8e6
SPLIT_SIMT_MIN_WAVES = 1.5
SPLIT_TOLERANCE = 1.05


def grid_ctas(plan: Plan, tile) -> int:
    """CTAs of `plan`'s grid on `tile` (one a tile a batch index)."""
    return math.ceil(plan.M / tile.bm) * math.ceil(plan.N / tile.bn) * plan.batch


def underfilled(ctas: int, sm_count: int) -> bool:
    """Whether a grid of `ctas` CTAs leaves the machine less than SPLIT_MAX_WAVE full: where cutting K (split-K, or a
    diagonal fold) may pay, and where a compute-bound core's packs are not zero-filled (the split paths cut the
    unpadded mode)."""
    return ctas < SPLIT_MAX_WAVE * sm_count


def split_candidates(plan: Plan, ext) -> list[tuple[str, int]]:
    """(k mode, slices) that split-K may cut: the mode's extent a multiple of the slices, each slice keeping
    SPLIT_MIN_K of K, a cut stride-1 mode keeping runs that are whole 16-byte vectors (a multiple of 8) and at
    least MIN_RUN long (slices cutting runs to 24 measured slower than slices of another mode), and, where
    any cut does, each input's fused k run kept (`_run_keeping`). Slowest mode first."""
    return _run_keeping(plan, ext, list(_cuts(plan, ext)))


def _cuts(plan: Plan, ext):
    """`split_candidates` before the fused-run rule."""
    unit = {m for t in (plan.problem.a, plan.problem.b) for m, st in zip(t.modes, t.strides, strict=True) if st == 1}
    most = min(MAX_SLICES, plan.K // SPLIT_MIN_K)  # (K // s >= SPLIT_MIN_K  <=>  s <= K // SPLIT_MIN_K)
    for mode in reversed(plan.part.k):  # prefer the slowest k mode
        e = ext[mode]
        for s in _divisors(e, most):
            run_ok = mode not in unit or ((e // s) % 8 == 0 and e // s >= MIN_RUN)
            if s >= 2 and run_ok:
                yield mode, s


def slice_run(t: TensorInfo, ext, kmodes, mode: str | None = None, q: int = 1) -> int | None:
    """The contiguous k run (elements) of input `t` in one slice of q values of k mode `mode` (None: not
    split): its modes from stride 1 up while each is a k mode whose stride is the product of those below, the cut
    mode's extent its slice's (the run ends there); None where `t`'s stride-1 mode is not a k mode."""
    st = t.stride_of()
    order = sorted((m for m in t.modes if ext[m] > 1), key=lambda m: abs(st[m]))
    if not order or order[0] not in kmodes or abs(st[order[0]]) != 1:
        return None
    run = 1
    for m in order:
        if m not in kmodes or abs(st[m]) != run:
            break
        if m == mode:
            return run * q
        run *= ext[m]
    return run


def _run_keeping(plan: Plan, ext, cands: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The split candidates that best keep each k-contiguous input's fused k run (`keeps_runs`): its length (a
    cut through the middle of a fused run, a k mode between others in memory, leaves each slice rows of a few
    elements, read a value at a time: measured on the H100, 36 slices of a middle mode, runs of 31 f16, ran 4.7x
    torch's time), then its copies of 4 bytes or more; all of them where none keeps the length."""
    keeps = keeps_runs(plan, ext)
    return best_kept(cands, lambda c: keeps(c[0], ext[c[0]] // c[1]))


def keeps_runs(plan: Plan, ext):
    """keeps(mode, q): how well slices of q values of k mode `mode` keep each k-contiguous input's fused k run: 0
    where a run falls below MIN_RUN elements (or its whole length, where that is shorter); 1 where a slice
    leaves a run that took copies of 4 bytes or more to copies of one element (the vector a slice keeps: the gcd of
    the whole run's vector, the slice's run and the offset between slices); else 2. A cut of a middle mode into
    runs of 39 x 15 f16, where the whole run took 8-byte vectors, left the slices read an element a copy (measured
    on the H100: 0.45-0.52x of the plan before and of torch.einsum); a cut of the slowest mode there keeps them.
    (Narrower vectors of 4 bytes or more cost less than the slices a stricter rule would give up.)"""
    k = set(plan.part.k)
    runs = [(t, whole, math.gcd(whole, 16 // t.itemsize))
            for t in (plan.problem.a, plan.problem.b) if (whole := slice_run(t, ext, k)) is not None]

    def keeps(mode: str, q: int) -> int:
        score = 2
        for t, whole, v in runs:
            run = slice_run(t, ext, k, mode, q)
            if run < min(MIN_RUN, whole):
                return 0
            stride = abs(t.stride_of().get(mode, 0))
            # (a slice's rows start q values of the cut mode apart, and, where the run goes on past that mode,
            #  at every step of the mode after it: the cut mode's extent apart, even where q does not divide it)
            more = stride * ext[mode] if run < whole and run // q * ext[mode] < whole else 0
            kept = math.gcd(v, run, q * stride, more)
            if kept * t.itemsize < 4 <= v * t.itemsize:
                score = 1
        return score

    return keeps


def _divisors(e: int, most: int) -> list[int]:
    """The divisors of `e` that are at most `most`, ascending. Trial division up to min(sqrt(e), most) with
    the cofactors: its cost is bounded by `most`, never by the extent (a summed mode may be 10^9 long)."""
    if e < 1 or most < 1:
        return []
    small, large = [], []
    for d in range(1, min(math.isqrt(e), most) + 1):
        if e % d == 0:
            small.append(d)
            if e // d != d and e // d <= most:
                large.append(e // d)
    return small + large[::-1]


def simt_split_tiles(plan: Plan, sm_count: int, f64_cores: bool = True):
    """The f32 simt split core's candidate tiles as (TileConfig, FMA cost): SIMT_SPLIT_TILES, or the plain
    tile where it is a short-side or a narrow one (a side of 32 or less: the wide split tiles would pad that
    side 2-4 times more), or with f64_cores DMMA_SPLIT_TILE; [] for the other paths."""
    t = plan_tile(plan, sm_count, f64_cores)
    if t.mma or plan.problem.compute != "f32":
        return []
    if short_side(t) or min(t.bm, t.bn) <= 32:
        return [(t, 1.0)]
    if f64_cores and tf32_mode(plan.problem.compute, plan.kernel_a.dtype, plan.kernel_b.dtype) == 2:
        bm, bn, bk, st, wm, wn, blocks = DMMA_SPLIT_TILE
        return [(TileConfig(bm, bn, bk, st, wm=wm, wn=wn, min_blocks=blocks), 1.0)]
    return [(TileConfig(bm, bn, bk, st, tm=tm, tn=tn, min_blocks=blocks), cost)
            for bm, bn, bk, st, tm, tn, blocks, cost in SIMT_SPLIT_TILES]


def simt_slices(plan: Plan, tiles, sm_count: int, ext, splits=None):
    """(k mode, slices, tile) of an f32 simt split core over the candidate `tiles` ((TileConfig, cost)
    pairs) and `splits` ((mode, slices); default every candidate): a time model, cost x (CTAs per SM of the
    split grid, rounded up) x (k per slice) x (tile area) / SIMT_FMA_PER_US + the workspace written and
    summed / SPLIT_BYTES_PER_US, over the choices whose grid has at least SPLIT_SIMT_MIN_WAVES waves of the
    tile's CTA slots (fewer hide too little latency; where none has, the most slices on the first tile);
    the fewest slices within SPLIT_TOLERANCE of the best. The tile gets stream-K CTAs where its grid has
    SPLIT_SK_MIN_WAVES waves and ends in a partial one (`tiles._stream_k`). On the H100 it picked the
    fastest of the splits measured for a 72 x 5184 output (6 slices of 72 x 128 tiles against 4, 8 or 9) and
    for outputs of about 300 x 300 over K ~ 10^5 (64 x 64 tiles against 128 x 64, 1.1-1.2x)."""
    ws = plan.M * plan.N * plan.batch * 8  # (bytes per slice: an f32 written, then read by the sum)
    per = lambda t: math.ceil(plan.M / t.bm) * math.ceil(plan.N / t.bn) * plan.batch  # noqa: E731

    def time_us(c):
        (t, cost), (_, s) = c
        return (cost * math.ceil(per(t) * s / sm_count) * (plan.K // s) * t.bm * t.bn / SIMT_FMA_PER_US
                + s * ws / SPLIT_BYTES_PER_US)

    every = split_candidates(plan, ext) if splits is None else list(splits)
    if not tiles or not every:
        return None
    cands = [(tc, ms) for tc in tiles for ms in every
             if per(tc[0]) * ms[1] >= _split_min_waves(tc[0]) * sm_count * max(1, tc[0].min_blocks)]
    if not cands:  # (a small output: as many slices as there may be; 4 slices measured 1.8x faster than none)
        (t, _), (mode, s) = tiles[0], max(every, key=lambda ms: ms[1])
    else:
        best = min(map(time_us, cands))
        (t, _), (mode, s) = min((c for c in cands if time_us(c) <= SPLIT_TOLERANCE * best),
                                key=lambda c: (c[1][1], time_us(c)))
    return mode, s, _stream_k(t, plan.M, plan.N, plan.K // s, plan.batch * s, sm_count, SPLIT_SK_MIN_WAVES)


def _split_min_waves(tile) -> int:
    """Waves of CTA slots a split core's slices must fill on `tile`: the f64 tensor-core tile's, or the simt ones'."""
    return SPLIT_DMMA_MIN_WAVES if tile.mma else SPLIT_SIMT_MIN_WAVES


def divisor_split(plan: Plan, sm_count: int, ext, f64_cores: bool = True):
    """(k mode to split, S, the split core's tile or None for the heuristic's) when split-K pays, else None."""
    if not plan.part.k or plan.problem.semiring is not None:  # (the slices are summed with +)
        return None
    t = plan_tile(plan, sm_count, f64_cores)  # the tile decides how many CTAs the plain grid has
    if not underfilled(grid_ctas(plan, t), sm_count) or plan.K < 2 * SPLIT_MIN_K:
        return None
    simt = simt_split_tiles(plan, sm_count, f64_cores)
    if simt:
        return simt_slices(plan, simt, sm_count, ext)
    # enough slices for two waves of the widest tile (128 x 128): the split core then runs on it
    # (measured on the H100 for outputs of about 300 x 300 over K ~ 10^5: 1.6-1.9x faster than fewer
    # slices on 128 x 64 mma.sync tiles)
    wide = math.ceil(plan.M / SPLIT_TILE) * math.ceil(plan.N / SPLIT_TILE) * plan.batch
    want = max(2, math.ceil(2 * sm_count / wide))
    best = min(split_candidates(plan, ext), key=lambda ms: abs(math.log(ms[1] / want)), default=None)
    return None if best is None else (*best, None)


def wave_split(plan: Plan, ext, sm_count: int, target: Target, w_order: tuple[str, ...], f64_cores: bool = True):
    """(the split core's plan, its workspace, the slice mode) of a compute-bound `plan` whose grid ends in a
    wave that leaves SMs idle (fewer than WAVE_SPLIT_MAX_WAVES waves), cut over k where plan/splitk.py's
    `wave_model_us` predicts at most WAVE_SPLIT_GAIN of the unsplit grid's time; None otherwise. Each
    divisor cut (`split_candidates`) is priced on the tile its core is lowered to, and on the plain plan's
    tile (the tile passes widen a split core's tile for its larger grid, which can bring the idle wave back)."""
    p = plan.problem
    if not plan.part.k or p.semiring is not None:
        return None
    target = replace(target, sm_count=sm_count)

    def priced(core: Plan, slices: int):
        try:
            spec = kernel_spec(core, False, sm_count=sm_count, wgmma=target.wgmma)
        except KernelError:
            return None
        t = spec.tile
        tiles = math.ceil(plan.M / t.bm) * math.ceil(plan.N / t.bn) * plan.batch
        ws = plan.M * plan.N * plan.batch * ITEMSIZE_OF[accumulate_type(p.compute)]
        peak = _peak(spec, target)
        if peak <= 0:  # (a target that names no peak for these instructions: nothing to price)
            return None
        return tiles, wave_model_us(tiles, plan.K, t.bm, t.bn, slices, peak, ws, target)

    base = priced(plan, 1)
    if base is None or base[0] >= WAVE_SPLIT_MAX_WAVES * sm_count or base[0] % sm_count == 0:
        return None
    best, best_us = None, WAVE_SPLIT_GAIN * base[1]
    plain = plan_tile(plan, sm_count, f64_cores)
    for mode, slices in split_candidates(plan, ext):
        cut = split_problem(p, mode, slices, w_order)
        for core in (make_plan(cut[0]), make_plan(cut[0], None, plain)):  # (its own tile, the plain one)
            got = priced(core, slices)
            if got is not None and got[1] < best_us:
                best, best_us = (core, *cut[1:]), got[1]
    return best


def split_problem(problem: ContractionProblem, mode: str, s: int, w_order: tuple[str, ...]):
    ext = dict(problem.extents)
    inner = ext[mode] // s
    out = mode + SPLIT_SUFFIX

    def cut(t: TensorInfo) -> TensorInfo:
        if mode not in t.modes:
            return t
        st = t.stride_of()
        i = t.modes.index(mode)
        return replace(t, modes=t.modes[:i + 1] + (out,) + t.modes[i + 1:],
                       strides=t.strides[:i + 1] + (st[mode] * inner,) + t.strides[i + 1:])

    ext[mode], ext[out] = inner, s
    acc = accumulate_type(problem.compute)  # (never narrower than D: the slices are summed in it)
    w = packed(TensorInfo("workspace", w_order + (out,), (0,) * (len(w_order) + 1), acc), w_order + (out,), ext)
    return ContractionProblem(cut(problem.a), cut(problem.b), None, w, tuple(sorted(ext.items())),
                              problem.compute), w, out


def remainder_cut(plan: Plan, part, tile, ext, split, sm_count: int, f64_cores: bool, target: Target,
                   w_order: tuple[str, ...]):
    """((k mode, q, S), the split core's (plan, workspace, slice mode)): split-K of a long K over a small output
    where the slices need not divide the mode
    (plan/splitk.py), when the divisor split (`split`, from `divisor_split`) is absent or the model prices it
    higher (a simt divisor split: when it has fewer slices and leaves the machine less than SPLIT_MAX_WAVE
    full); None otherwise.

    The slices are counted on the tile the split core is lowered to (tiles.kernel_spec's passes may widen the
    heuristic's tile of the unsplit plan, which would leave 1-4x fewer CTAs than counted) and the CTAs of it
    an SM holds: counted on the plain tile first, then again on the core's until the two agree (at most
    SLICE_ROUNDS times), the cheapest cut by the model kept. The divisor split is priced on its own core's
    tile; a tail costs one more launch."""
    p = plan.problem
    if not plan.part.k or p.semiring is not None or plan.K < 2 * SPLIT_MIN_K:
        return None
    t = plan_tile(plan, sm_count, f64_cores)
    tiles = grid_ctas(plan, t)
    simt = split is not None and split[2] is not None  # (a simt split core, sized by `simt_slices`' own model)
    if not underfilled(tiles, sm_count) or simt and not underfilled(tiles * split[1], sm_count):
        return None
    acc = ITEMSIZE_OF[accumulate_type(p.compute)]
    target = replace(target, sm_count=sm_count)
    unit = {m for x in (p.a, p.b) for m, st in zip(x.modes, x.strides, strict=True) if abs(st) == 1}
    in_bytes = (plan.kernel_a.itemsize, plan.kernel_b.itemsize)
    args = (plan.M, plan.N, plan.K, plan.batch, in_bytes, acc)
    cta = SplitTile.of(t, in_bytes, target)
    keeps = keeps_runs(plan, ext)
    seen, built = {}, {}
    for _ in range(SLICE_ROUNDS):
        slices = best_slices(*args, cta, target)
        cut = choose_cut(plan.part.k, ext, unit, plan.K, slices, keeps) if slices >= 2 else None
        if cut is None or cut in seen:
            break
        built[cut] = _remainder_core(p, part, tile, ext, cut, w_order, sm_count, f64_cores)
        cta = _core_cta(built[cut][0], in_bytes, sm_count, target) or cta
        tail = target.launch_us if cut[1] * cut[2] < ext[cut[0]] else 0.0
        seen[cut] = split_model_us(*args, cta, cut[2], target) + tail
    if not seen:
        return None
    cut = min(seen, key=seen.get)
    if simt:
        return None if split[1] >= cut[2] else (cut, built[cut])
    if split is not None:  # (the divisor split, unless the model prices it higher)
        core = make_plan(split_problem(p, split[0], split[1], w_order)[0], None, tile)
        if split_model_us(*args, _core_cta(core, in_bytes, sm_count, target) or SplitTile.of(t, in_bytes, target),
                          split[1], target) <= seen[cut]:
            return None
    return cut, built[cut]


def _core_cta(core: Plan, in_bytes, sm_count: int, target: Target) -> SplitTile | None:
    """The SplitTile of the tile `core` is lowered to (tiles.kernel_spec, with its shared memory); None for a core
    that the GETT kernel does not run itself (complex planes, exact integer sums: their backends tile them)."""
    try:
        spec = kernel_spec(core, False, sm_count=sm_count, wgmma=target.wgmma)
    except KernelError:
        return None
    return SplitTile.of(spec.tile, in_bytes, target, spec.smem_bytes)


def _remainder_core(prob, part, tile, ext, cut, w_order, sm_count, f64_cores):
    """(the split core's plan, its workspace, the slice mode) of `remainder_cut`'s (mode, q, S) over `prob`: the
    core over the mode's first S x q values in S slices."""
    mode, q, s = cut
    head_ext = dict(ext)
    head_ext[mode] = q * s
    head = replace(prob, extents=tuple(sorted(head_ext.items())))
    head_plan = make_plan(head, part, tile)
    simt = simt_slices(head_plan, simt_split_tiles(head_plan, sm_count, f64_cores), sm_count, head_ext,
                        [(mode, s)])
    core_problem, w, out = split_problem(head, mode, s, w_order)
    return make_plan(core_problem, None, tile if tile is not None else (simt[2] if simt else None)), w, out

__all__ = ["DMMA_SPLIT_TILE", "SPLIT_MAX_WAVE", "SPLIT_MIN_K", "SPLIT_SUFFIX", "SPLIT_TILE", "divisor_split",
           "grid_ctas", "keeps_runs", "remainder_cut", "simt_slices", "simt_split_tiles", "slice_run",
           "split_candidates", "split_problem", "underfilled", "wave_split"]
