"""The autotuner: random sampling of the design space, pruned by a cheap model, every candidate
checked numerically before it is timed, the best one recorded in the tuning database.

Design space of a binary contraction: the order of the modes inside I_m, I_n and I_k, the transpose
flag (which operand is the kernel's A), and the tile (block and warp/thread tile, bk, stages). The
seed paper found random sampling the best search for it; we sample `samples` candidates (the
heuristic plan always among them), reject invalid ones before compiling (tile constraints, loads per
thread), rank them by `predicted_ms` and measure only the `top` best-ranked.

`predicted_ms` is a roofline with the costs the layouts make visible: every operand's bytes times
how often its tile is re-read (A once per CTA column, B once per CTA row), times the sector waste of
its access (a scalar gather moves a 32-byte sector for 2-8 useful bytes), over the copy bandwidth;
the flops over a peak scaled by the tile's expected efficiency; and wave quantisation (CTAs over a
whole number of waves of the SMs).
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace

from ..errors import KernelError
from ..kernels.spec import KernelSpec, TileConfig
from .partition import Partition, partition
from .plan import Plan, make_plan
from .problem import ContractionProblem
from .target import DEFAULT_TARGET, Target
from .tiles import NARROW_WS_TILE, kernel_spec

#: candidate tiles (mma path for f16/bf16, simt path otherwise)
MMA_TILES = [(128, 128, 64, 3, 64, 64), (128, 128, 32, 4, 64, 32), (128, 256, 32, 3, 64, 64),
             (256, 128, 32, 3, 64, 64), (128, 64, 32, 4, 64, 32), (64, 128, 32, 4, 32, 64),
             (64, 64, 32, 4, 32, 32), (128, 32, 32, 4, 32, 32), (32, 128, 32, 4, 32, 32)]
SIMT_TILES = [(128, 128, 16, 3, 8, 8), (128, 64, 16, 3, 8, 4), (64, 128, 16, 3, 4, 8), (64, 64, 16, 3, 4, 4),
              (128, 32, 16, 3, 8, 2), (32, 128, 16, 3, 2, 8), (128, 128, 8, 4, 8, 8), (64, 64, 8, 4, 4, 4),
              (128, 64, 8, 3, 8, 4)]
#: sm_90 tiles of the mma path: warpgroup MMA (bm, bn, stages; bk 64), the TMA-fed warp-specialised ones,
#: and persistent variants of mma.sync tiles (flags: "p" persistent, "t" TMA + warp-specialised, "c" the
#: same in clusters of two)
WGMMA_TILES = [(128, 128, 3, ""), (256, 128, 4, ""), (256, 128, 3, ""), (128, 64, 4, ""), (128, 256, 4, "t"),
               (256, 128, 4, "t"), (256, 128, 3, "p"), (128, 256, 4, "c"), (128, 240, 4, "t"), (128, 208, 4, "t"),
               (256, 160, 4, "c"), (128, 224, 4, "c")]
PERSISTENT_MMA_TILES = [(96, 128, 32, 2, 48, 64), (128, 128, 32, 2, 64, 32), (32, 256, 32, 3, 32, 32)]


@dataclass(frozen=True, slots=True)
class Candidate:
    """One point of the design space: a partition (orders + transpose flag) and a tile (None: heuristic)."""

    part: Partition
    tile: TileConfig | None = None

    def to_dict(self) -> dict:
        return {"part": {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self.part).items()},
                "tile": None if self.tile is None else asdict(self.tile)}

    @classmethod
    def from_dict(cls, d: dict) -> Candidate:
        p = d["part"]
        part = Partition(tuple(p["m"]), tuple(p["n"]), tuple(p["k"]), tuple(p["b"]), bool(p["swapped"]),
                         int(p.get("split_m", 0)), int(p.get("split_n", 0)))
        tile = d.get("tile")
        if tile is not None and "split_k" in tile:  # (records written while TileConfig had split_k, always 1)
            if tile["split_k"] != 1:
                raise ValueError(f"tile {tile}: split_k={tile['split_k']!r} (TileConfig has no in-kernel split-K)")
            tile = {k: v for k, v in tile.items() if k != "split_k"}
        return cls(part, None if tile is None else TileConfig(**tile))


def candidate_from_record(problem: ContractionProblem, config,
                          target: Target = DEFAULT_TARGET) -> tuple[Candidate | None, str]:
    """(candidate, "") of a tuning record's config when it is a valid candidate for `problem`, else (None,
    why). A record read from disk is checked before it is used: it must parse as a Candidate and pass
    `check_candidate` on `target`."""
    try:
        c = Candidate.from_dict(config)
    except Exception as e:  # noqa: BLE001 - any malformed record (wrong types, missing keys, bad tile) is refused
        return None, f"malformed config ({type(e).__name__}: {str(e)[:120]})"
    why = check_candidate(problem, c, target)
    return (None, why) if why else (c, "")


def check_candidate(problem: ContractionProblem, c: Candidate, target: Target = DEFAULT_TARGET) -> str:
    """Why `c` cannot run `problem` correctly ("" when it can): its partition must hold every mode of the
    problem exactly once, in the set the planner's partition puts it in (m and n exchanged with the
    transpose flag), with cuts (split_m / split_n) that are non-negative integers dividing their mode's
    extent; the plan it makes and its tile must be buildable on `target` (`valid`)."""
    part = c.part
    base = partition(problem)
    sets = {"m": part.m, "n": part.n, "k": part.k, "b": part.b}
    every = [x for v in sets.values() for x in v]
    if len(every) != len(set(every)):
        return f"a mode appears twice in the partition {sets}"
    for x in every:
        if not isinstance(x, str):
            return f"mode {x!r} of the partition is not a mode name"
    want_m, want_n = (base.m, base.n) if part.swapped == base.swapped else (base.n, base.m)
    for name, got, want in (("m", part.m, want_m), ("n", part.n, want_n), ("k", part.k, base.k), ("b", part.b, base.b)):
        if set(got) != set(want):
            return (f"its {name} modes {list(got)} are not the problem's {list(want)} (transpose flag "
                    f"{part.swapped})")
    ext = dict(problem.extents)
    for name, lo, order in (("split_m", part.split_m, part.m), ("split_n", part.split_n, part.n)):
        if not isinstance(lo, int) or isinstance(lo, bool) or lo < 0 or (lo and ext[order[0]] % lo):
            return f"its {name}={lo!r} is not a cut of mode {order[0] if order else None!r}"
    try:
        plan = make_plan(problem, part, c.tile)
        if c.tile is not None and not valid(problem, c, target):
            return f"its tile {c.tile} is not valid for this problem"
    except Exception as e:  # noqa: BLE001 - whatever makes the plan fail refuses the record
        return f"its plan cannot be built ({type(e).__name__}: {str(e)[:120]})"
    if (plan.M, plan.N, plan.K, plan.batch) != _mnkb(base, part, ext):
        return "its GEMM extents differ from the problem's"
    return ""


def _size(modes, ext) -> int:
    return math.prod(ext[m] for m in modes)


def _mnkb(base: Partition, part: Partition, ext) -> tuple[int, int, int, int]:
    """The GEMM extents (M, N, K, batch) `part` must have: the planner's, M and N exchanged with the flag."""
    m, n = (base.m, base.n) if part.swapped == base.swapped else (base.n, base.m)
    return _size(m, ext), _size(n, ext), _size(base.k, ext), _size(base.b, ext)


def schedule_of(problem: ContractionProblem, c: Candidate, target: Target = DEFAULT_TARGET):
    """The schedule a candidate stands for on `target`: the heuristic's own (partition re-planned around any packs,
    persistent and TMA tiles chosen) for the heuristic candidate, else the forced partition and tile. f32 GEMMs
    run on the f64 tensor cores where the target has sm_90's (as the plan cache's schedules)."""
    from .schedule import make_schedule

    if c.tile is None and c.part == partition(problem):
        return make_schedule(problem, f64_cores=target.wgmma, target=target)
    return make_schedule(problem, part=c.part, tile=c.tile, f64_cores=target.wgmma, target=target)


def _mma(problem: ContractionProblem) -> bool:
    return problem.a.dtype in ("f16", "bf16") and problem.b.dtype == problem.a.dtype and problem.compute == "f32"


def _shuffled(modes: tuple[str, ...], rng: random.Random) -> tuple[str, ...]:
    m = list(modes)
    rng.shuffle(m)
    return tuple(m)


def _tiles(problem: ContractionProblem, wgmma: bool) -> list[TileConfig]:
    """The candidate tiles of `problem`'s path (wgmma and persistent ones on sm_90 devices)."""
    if _mma(problem):
        tiles = [TileConfig(bm, bn, bk, st, wm=x, wn=y) for bm, bn, bk, st, x, y in MMA_TILES]
        if wgmma:
            tiles += [TileConfig(bm, bn, 64, st, wm=64, wn=bn, wgmma=True, persistent=f == "p", ws=f in ("t", "c"),
                                 tma=f in ("t", "c"), cluster=2 if f == "c" else 1) for bm, bn, st, f in WGMMA_TILES]
            tiles += [TileConfig(bm, bn, bk, st, wm=x, wn=y, persistent=True)
                      for bm, bn, bk, st, x, y in PERSISTENT_MMA_TILES]
        return tiles
    f64 = problem.compute == "f64"
    return [TileConfig(bm, bn, 8 if f64 else bk, st, tm=x, tn=y) for bm, bn, bk, st, x, y in SIMT_TILES]


def design_space(problem: ContractionProblem, samples: int, seed: int = 0,
                 target: Target = DEFAULT_TARGET) -> list[Candidate]:
    """`samples` distinct candidates valid on `target`, the heuristic one first (sm_90 tiles where the target
    has wgmma)."""
    rng = random.Random(seed)
    base = partition(problem)
    tiles = _tiles(problem, target.wgmma)
    out = [Candidate(base, None)]
    seen = {out[0]}
    for _ in range(samples * 20):
        if len(out) >= samples:
            break
        swap = base.swapped if rng.random() < 0.7 else not base.swapped
        m, n = (base.m, base.n) if swap == base.swapped else (base.n, base.m)
        part = Partition(_shuffled(m, rng) if rng.random() < 0.5 else m, _shuffled(n, rng) if rng.random() < 0.5 else n,
                         _shuffled(base.k, rng) if rng.random() < 0.5 else base.k, base.b, swap)
        c = Candidate(part, rng.choice(tiles))
        if c not in seen and valid(problem, c, target):
            seen.add(c)
            out.append(c)
    return out


def _spec(plan: Plan, target: Target, tile: TileConfig | None = None) -> KernelSpec:
    """The KernelSpec of `plan` (C not read) on `target`'s SMs and instructions, on `tile` or the heuristic's."""
    return kernel_spec(plan, False, tile=tile, sm_count=target.sm_count, wgmma=target.wgmma)


def valid(problem: ContractionProblem, c: Candidate, target: Target = DEFAULT_TARGET) -> bool:
    """Rejects what would not compile, before compiling: a tile the kernel spec refuses for this layout (loads
    per thread beyond the predicate mask, a TMA tile without tensor maps, say), or one of sm_90's instructions
    (warpgroup MMA, TMA, clusters) where the target has none."""
    if c.tile is None:
        return True
    t = c.tile
    if t.wgmma and not target.wgmma or (t.tma or t.ws) and not target.tma or t.cluster > 1 and not target.clusters:
        return False
    plan = make_plan(problem, c.part, c.tile)
    try:
        _spec(plan, target)
    except KernelError:
        return False
    return True


def predicted_ms(plan: Plan, tile: TileConfig, target: Target = DEFAULT_TARGET) -> float:
    """The cheap model of the module docstring (milliseconds on `target`)."""
    path = "mma" if tile.mma else "simt64" if plan.problem.compute == "f64" else "simt32"
    tiles_m, tiles_n = math.ceil(plan.M / tile.bm), math.ceil(plan.N / tile.bn)
    ctas = tiles_m * tiles_n * plan.batch

    def waste(lay, dims):
        # inputs vectorise along any stride-1 term of m / n (vector_access), D along its leading one
        v = max(lay.vector_width(d) if d == "k" or lay.name == "D" else lay.vector_access(d)[0] for d in dims)
        return max(1.0, 32.0 / (v * lay.itemsize))  # 32-byte sectors per useful bytes

    a = plan.layout_a.itemsize * plan.M * plan.K * plan.batch * tiles_n * waste(plan.layout_a, ("m", "k"))
    b = plan.layout_b.itemsize * plan.K * plan.N * plan.batch * tiles_m * waste(plan.layout_b, ("k", "n"))
    d = plan.layout_d.itemsize * plan.M * plan.N * plan.batch * waste(plan.layout_d, ("m", "n"))
    mem_ms = target.copy_us(a + b + d) / 1e3
    eff = min(1.0, (tile.bm * tile.bn) / (128 * 128)) * 0.35  # mma.sync from smem reaches ~1/3 of peak
    if tile.wgmma:
        eff *= 2.0  # (warpgroup MMA: 0.55-0.75 of peak, measured on the H100)
    flop_ms = plan.flops / (target.peak(path) * 1e9 * max(eff, 0.05))
    waves = math.ceil(ctas / target.sm_count) / max(ctas / target.sm_count, 1e-9)
    return max(mem_ms, flop_ms) * max(1.0, waves)


@dataclass(frozen=True, slots=True)
class Trial:
    candidate: Candidate
    predicted_ms: float
    measured_ms: float | None
    ok: bool
    note: str = ""


#: the L2 prefetch sizes the tuner measures on the heuristic's tile (TileConfig.l2_prefetch)
PREFETCH_SIZES = (0, 128, 256)


def option_variants(problem: ContractionProblem, heuristic: tuple[float, Candidate],
                    target: Target = DEFAULT_TARGET) -> list[tuple[float, Candidate]]:
    """(prediction, candidate) of the heuristic's tile with each other of PREFETCH_SIZES on its cp.async copies,
    with A's panel resident in shared memory (TileConfig.resident_a) switched the other way where the kernel
    takes that, and on mma.sync tiles with ops on A or B those applied the other way: to the fragments or to the
    stages (TileConfig.frag_op_a / frag_op_b); for a row-stream tile `_row_stream_variants`; none for a TMA tile.
    The model cannot tell them from the heuristic's (it sees neither DRAM's access pattern nor the stages'
    copies), so they are measured beside it, not ranked."""
    pred, c = heuristic
    plan = make_plan(problem, c.part, None)
    spec = _spec(plan, target)
    tile = spec.tile
    if tile.tma:
        return []
    if tile.rows:
        return [(pred, Candidate(c.part, t)) for t in _row_stream_variants(plan, tile, target)]
    tiles = [replace(tile, l2_prefetch=n) for n in PREFETCH_SIZES if n != tile.l2_prefetch]
    frag = tile.frag_op_a or tile.frag_op_b

    def ops_on(t, on: bool):  # (t with the ops on its fragments, or on its stages)
        return replace(t, frag_op_a=on and bool(spec.op_a) and not t.resident_a, frag_op_b=on and bool(spec.op_b))

    if not tile.wgmma:
        try:
            flip = replace(tile, resident_a=not tile.resident_a, frag_op_a=False)
            tiles.append(_spec(plan, target, ops_on(flip, frag) if frag else flip).tile)
        except KernelError:
            pass
    if tile.mma and not tile.wgmma and (spec.op_a or spec.op_b) and not spec.tf32:
        tiles.append(ops_on(tile, not frag))
    return [(pred, Candidate(c.part, t)) for t in tiles]


def _row_stream_variants(plan, tile: TileConfig, target: Target) -> list[TileConfig]:
    """A row-stream tile's alternatives (TileConfig.rows): one stage fewer, K in 2 parts, and the warp-specialised
    wgmma tile the heuristic took before it (plan/tiles.py NARROW_WS_TILE), each where the kernel takes it."""
    out = []
    for t in (replace(tile, stages=tile.stages - 1) if tile.stages > 2 else None, replace(tile, rows=2),
              NARROW_WS_TILE):
        if t is None or t == tile:
            continue
        try:
            out.append(_spec(plan, target, t).tile)
        except KernelError:
            pass
    return out


def tune(problem: ContractionProblem, run: Callable[[Candidate], tuple[float, bool]], samples: int = 48,
         top: int = 8, seed: int = 0, prepare: Callable[[list[Candidate]], None] | None = None,
         target: Target = DEFAULT_TARGET) -> list[Trial]:
    """Sample, prune, then measure the `top` candidates with `run` (-> (ms, verified)); best first.

    Measured besides them: the heuristic's tile with the options of `option_variants`.

    `prepare` (e.g. parallel compilation of the kernels) gets the candidates that will be measured.
    The heuristic candidate is always measured, so the result says how far the heuristic is from the best.
    """
    scored = []
    for c in design_space(problem, samples, seed, target):
        plan = make_plan(problem, c.part, c.tile)
        scored.append((predicted_ms(plan, c.tile or _spec(plan, target).tile, target), c))
    ranked = sorted(scored[1:], key=lambda x: x[0])[: max(0, top - 1)]
    keep = [scored[0]] + option_variants(problem, scored[0], target) + ranked
    if prepare is not None:
        prepare([c for _, c in keep])
    trials = []
    for pred, c in keep:
        try:
            ms, ok = run(c)
            trials.append(Trial(c, pred, ms if ok else None, ok, "" if ok else "result did not verify"))
        except Exception as e:  # noqa: BLE001 - a failing candidate is recorded, never chosen
            trials.append(Trial(c, pred, None, False, f"{type(e).__name__}: {str(e)[:120]}"))
    return sorted(trials, key=lambda t: (not t.ok, t.measured_ms if t.measured_ms is not None else math.inf))
