"""Time one TCCG contraction's GETT kernel under several tile configurations (a manual autotuner step).

    python -m tccg.tile_probe --cases 12,20 --dtype f16

Each configuration is compiled, checked against float64 on the same inputs, then timed with CUDA
events over back-to-back launches (median of 20 batches); the heuristic's choice is marked `*`. Where
the schedule packs an input, the pack is made once beforehand and only the core kernel is timed
(split-K schedules are skipped: tccg.split_probe times those).
Needs a GPU. Prints one line per (case, configuration).
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import re
import statistics

import numpy as np

from .runner import case_problem
from .suite import parse_cases

MMA_TILES = [  # (bm, bn, bk, stages, wm, wn)
    (128, 128, 32, 4, 64, 32), (128, 128, 32, 3, 64, 64), (128, 256, 32, 3, 64, 64), (256, 128, 32, 3, 64, 64),
    (128, 128, 64, 3, 64, 64), (128, 256, 32, 4, 64, 64), (128, 128, 32, 4, 32, 64),
]
WGMMA_TILES = [(128, 128, 3), (128, 128, 4), (128, 256, 3), (128, 256, 4), (256, 128, 3), (256, 128, 4),
               (192, 128, 4), (128, 192, 4), (128, 64, 4), (256, 192, 3), (192, 256, 3)]  # (bm, bn, stages), bk 64


#: the copy options of a `--tiles` entry (parse_tile, tile_from): `:lN` an L2 prefetch of N bytes on the
#: cp.async copies, `:r` A's panel resident in shared memory, `:f` the ops on A and B applied to their
#: fragments (where the core has them, A's not on a resident panel), `:s` both applied to the stages
_COPY_OPTS = r"(?::l(\d+))?(:r)?(:[fs])?"


def _copy_kw(l2, resident) -> dict:
    """TileConfig keywords of the copy options given (the _COPY_OPTS groups but the last)."""
    kw = {"l2_prefetch": int(l2)} if l2 else {}
    return kw | ({"resident_a": True} if resident else {})


def _with_frag(tile, frag):
    """`tile` with the ops option of _COPY_OPTS's last group: `:f` both fragment ops (A's not beside a resident
    panel, which takes A's op itself; `fit_frag_ops` trims them to the core's ops), `:s` neither."""
    if not frag:
        return tile
    return dataclasses.replace(tile, frag_op_a=frag == ":f" and not tile.resident_a, frag_op_b=frag == ":f")


def fit_frag_ops(tile, op_a: str, op_b: str):
    """`tile` with its fragment ops only where the core has an op on that input."""
    return dataclasses.replace(tile, frag_op_a=tile.frag_op_a and bool(op_a), frag_op_b=tile.frag_op_b and bool(op_b))


def parse_tile(text: str):
    """A TileConfig from `BMxBNxBK/STAGES@WMxWN`, with a trailing `w` for wgmma or `s` for a simt thread tile,
    then `p` for a persistent tile, `x` for a warp-specialised (wgmma) one, `t` for one fed by TMA (`xp`, `tp`:
    those persistent), then the options below (`:lN`: cp.async copies with an L2 prefetch of N bytes, `:r`: A's
    panel resident in shared memory, `:f`: the ops on A and B applied to their fragments, `:s`: to the
    stages)."""
    from gettpy.kernels.spec import TileConfig

    m = re.fullmatch(r"(\d+)x(\d+)x(\d+)/(\d+)@(\d+)x(\d+)([ws]?)([pxt]?p?)"
                     r"(?::g(\d+))?(?::b(\d+))?(?::k(\d+))?(?::s(\d+))?(?::c(\d+))?(:e)?" + _COPY_OPTS,
                     text.strip())
    if not m:
        raise SystemExit(f"--tiles: cannot read {text!r} (want BMxBNxBK/STAGES@WMxWN, optional w or s suffix, "
                         f"optional p (persistent), x (warp-specialised) or t (TMA), optional :gN for N tile rows per "
                         f"rasterisation group, optional :bN for registers left for N CTAs per SM, optional :kN "
                         f"for N stream-K CTAs, then optional :cN for clusters of N CTAs, then "
                         f"optional :e for a chunked epilogue on persistent warp-specialised tiles, then optional :lN "
                         f"for cp.async copies with an L2 prefetch of N = 64, 128 or 256 bytes, then optional :r for "
                         f"A's panel resident in shared memory, then optional :f for the ops on A and B applied to "
                         f"their fragments or :s for them applied to the stages)")
    bm, bn, bk, st, x, y = (int(g) for g in m.groups()[:6])
    f = m.group(8)
    kw = {"persistent": f.endswith("p"), "ws": f[:1] in ("x", "t"), "tma": f[:1] == "t"}
    if m.group(9):
        kw["group_m"] = int(m.group(9))
    if m.group(10):
        kw["min_blocks"] = int(m.group(10))
    if m.group(11):
        kw["sk_ctas"] = int(m.group(11))
    if m.group(12):
        raise SystemExit(f"--tiles: {text!r}: the aligned stream-K form (:sN after :kN) is no longer a kernel option")
    if m.group(13):
        kw["cluster"] = int(m.group(13))
    if m.group(14):
        kw["chunked"] = True
    kw |= _copy_kw(*m.groups()[14:16])
    if m.group(7) == "s":
        return _with_frag(TileConfig(bm, bn, bk, st, tm=x, tn=y, **kw), m.group(17))
    return _with_frag(TileConfig(bm, bn, bk, st, wm=x, wn=y, wgmma=m.group(7) == "w", **kw), m.group(17))


def tile_from(text: str, heuristic):
    """A `--tiles` entry: `H` (the heuristic's tile) or `P` (that made persistent), either followed by `:lN` (its
    copies with an L2 prefetch of N bytes), `:r` (A's panel resident) and `:f` / `:s` (the ops on A and B
    applied to their fragments / stages), the options not given left as the heuristic has them; or a tile
    for `parse_tile`. None where the heuristic's tile is a TMA one and an option is asked (it has no copies,
    and A has stages)."""
    m = re.fullmatch(r"([HP])" + _COPY_OPTS, text.strip())
    if not m:
        return parse_tile(text)
    kw = _copy_kw(*m.groups()[1:3])
    if heuristic.tma and (kw or m.group(4)):
        return None
    if kw.get("resident_a"):  # (the panel takes A's op)
        kw["frag_op_a"] = False
    return _with_frag(dataclasses.replace(heuristic, persistent=heuristic.persistent or m.group(1) == "P", **kw),
                      m.group(4))


def core_schedule(case, din: str, dout: str, swap: bool = False, order: str = "", op: str | None = None,
                  compute: str = ""):
    """The schedule of TCCG `case` (host only). swap: the planner's partition with A and B trading roles.
    order: the kernel's m or n modes in another order, e.g. "n=c,a" (fastest first), its first mode
    optionally cut, e.g. "n=a:8,c": a's first 8, then c, then the rest of a (Partition.split_n). op: a
    gettpy op name (e.g. "leaky_relu") on A, B and the result, as `python -m tccg --ops` poses it. compute: the
    problem's compute type ("" for the default)."""
    from gettpy.plan.partition import partition
    from gettpy.plan.schedule import make_schedule

    problem = case_problem(case, din, dout, op=op)
    if compute:
        problem = dataclasses.replace(problem, compute=compute)
    part = None
    if swap:
        part = partition(problem).traded()
    for item in filter(None, order.split(";")):
        dim, text = item.split("=")
        modes = text.split(",")
        first, _, cut = modes[0].partition(":")
        modes[0] = first
        p = part or partition(problem)
        if sorted(modes) != sorted(getattr(p, dim)):
            raise SystemExit(f"--order {item}: the kernel's {dim} modes are {getattr(p, dim)}")
        part = dataclasses.replace(p, **{dim: tuple(modes), f"split_{dim}": int(cut or 0)})
    return make_schedule(problem, part=part)


def core_inputs(case, din: str, dout: str, swap: bool = False, order: str = "", op: str | None = None,
                compute: str = ""):
    """(schedule, core plan, A and B as the core kernel reads them, D, float64 reference) of TCCG `case` with
    random column-major inputs; the packs, if any, are made here, outside any timing. None for a split-K
    schedule (tccg.split_probe times those). swap, order, op, compute: as `core_schedule`."""
    import cupy

    from gettpy.backends.staged import _pack
    from gettpy.ops import as_op

    sched = core_schedule(case, din, dout, swap, order, op, compute)
    if sched.stage_d is not None:
        return None
    shapes = case.shapes()
    rng = np.random.default_rng(case.num)
    dt = np.float16 if din == "f16" else np.float32
    a = cupy.asarray(np.asfortranarray(rng.uniform(-1, 1, shapes[0]).astype(dt)), order="F")
    b = cupy.asarray(np.asfortranarray(rng.uniform(-1, 1, shapes[1]).astype(dt)), order="F")
    d = cupy.empty(shapes[2], dtype=np.float16 if dout == "f16" else np.float32, order="F")
    g = as_op(op)

    def f64(x):  # (op(x) in float64, on the host: the op's numpy twin)
        x = x.astype(cupy.float64)
        return x if g.is_identity else cupy.asarray(g(cupy.asnumpy(x)))
    ref = f64(cupy.einsum(case.einsum_subscripts(), f64(a), f64(b)))
    ext = dict(sched.problem.extents)
    pa = _pack(cupy, a, sched.problem.a, sched.pack_a, ext) if sched.pack_a is not None else a
    pb = _pack(cupy, b, sched.problem.b, sched.pack_b, ext) if sched.pack_b is not None else b
    ka, kb = (pb, pa) if sched.core.part.swapped else (pa, pb)
    return sched, sched.core, ka, kb, d, ref


def tile_run(plan, tile, ka, kb, d):
    """(kernel spec, a callable launching it once) of the core `plan` on `tile` (the heuristic's for None)."""
    from gettpy.backends.gpu import launch
    from gettpy.plan.tiles import kernel_spec

    spec = kernel_spec(plan, False, tile=tile) if tile is not None else kernel_spec(plan, False)
    ptrs = (ka.data.ptr, kb.data.ptr, 0, d.data.ptr)
    return spec, lambda: launch(spec, *ptrs, 1.0, 0.0)


def round_robin(runs, rounds: int, batches: int = 20, per_batch: int = 5) -> None:
    """Time each (launch, times) of `runs` round-robin: `rounds` rounds, in each `batches` batches of `per_batch`
    back-to-back launches per entry between CUDA events, the ms per launch of each batch appended to its
    `times` (the H100's clocks drift down as it heats, which would favour whichever ran first in one go)."""
    import cupy

    for _ in range(rounds):
        for run, times in runs:
            for _ in range(batches):
                e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
                e0.record()
                for _ in range(per_batch):
                    run()
                e1.record()
                e1.synchronize()
                times.append(cupy.cuda.get_elapsed_time(e0, e1) / per_batch)


def _prebuild(cases, din, dout, args, case_tiles) -> None:
    """Compile every case's tiles into the disk cache first, in parallel threads (the timing loop then loads
    them); a tile the planner refuses is left to the loop, which reports it."""
    from gettpy.kernels.build import prebuild
    from gettpy.plan.tiles import kernel_spec

    specs = []
    for case in cases:
        sched = core_schedule(case, din, dout, args.swap, args.order, args.op, args.compute)
        if sched.stage_d is not None:
            continue
        for tile in case_tiles(sched.core):
            try:
                specs.append(kernel_spec(sched.core, False, tile=tile))
            except Exception:  # noqa: BLE001 - reported by the timing loop
                pass
    print(f"compiling {len(specs)} kernels", flush=True)
    try:
        prebuild(specs)
    except Exception as e:  # noqa: BLE001 - the timing loop compiles (and reports) them one by one
        print(f"prebuild stopped: {type(e).__name__}: {str(e)[:150]}")


def main(argv=None) -> int:
    import cupy

    from gettpy.errors import KernelError
    from gettpy.kernels.spec import TileConfig
    from gettpy.plan.tiles import kernel_spec

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="12,20")
    ap.add_argument("--dtype", default="f16", choices=["f16", "f16f32", "f32"], help="f16f32: f16 in, f32 out")
    ap.add_argument("--rounds", type=int, default=3, help="round-robin timing rounds over the tiles")
    ap.add_argument("--swap", action="store_true", help="A and B trading roles (the other transpose flag)")
    ap.add_argument("--order", default="", help="the kernel's m / n modes in this order, e.g. 'n=c,a' or "
                    "'m=b;n=c,a' (fastest first), instead of the planner's")
    ap.add_argument("--op", default=None, help="a gettpy op (e.g. leaky_relu) on A, B and the result, as "
                    "`python -m tccg --ops` poses it; ops the schedule pre-applies in a pack are made beforehand")
    ap.add_argument("--compute", default="", help="the problem's compute type (e.g. f64: f32 inputs summed in f64, "
                    "on the f64 tensor cores on an mma tile), instead of the default")
    ap.add_argument("--paths", default="mma,wgmma", help="tile families to time besides the heuristic's")
    ap.add_argument("--tiles", default="", help="only these tiles besides the heuristic's, comma separated, "
                    "BMxBNxBK/STAGES@WMxWN (mma.sync), the same ending in 'w' (wgmma) or @TMxTN ending in 's' (simt), "
                    "then 'p' for persistent, 'x' for warp-specialised, 't' for TMA; 'H': the heuristic's tile, 'P': "
                    "that made persistent, either with ':lN' for an L2 prefetch of N bytes on its copies and ':r' for "
                    "A's panel resident in shared memory, and ':f' / ':s' for the ops on A and B applied to their "
                    "fragments / stages; a tile starting with '~' runs on the plan with A and B trading roles")
    args = ap.parse_args(argv)
    din, dout = ("f16", "f32") if args.dtype == "f16f32" else (args.dtype, args.dtype)
    sm90 = str(cupy.cuda.Device().compute_capability) == "90"

    def case_tiles(plan, flipped=None):
        """(label, tile) of the tiles to time, the heuristic's first. An entry '~T' is tile T on the plan with
        A and B trading roles (`flipped`; skipped without it): its label keeps the '~'."""
        base = kernel_spec(plan, False)
        tiles = [("heuristic", base.tile)]
        own = kernel_spec(flipped, False).tile if flipped else base.tile  # ('H' / 'P': the tile's plan's heuristic)
        for t in args.tiles.split(",") if args.tiles else ():
            if t.startswith("~") != (flipped is not None):
                continue
            try:
                tile = tile_from(t.lstrip("~"), own)
                tile = tile and fit_frag_ops(tile, base.op_a, base.op_b)
            except KernelError as e:  # (an option this tile cannot take: a resident panel on a wgmma tile)
                print(f"{t}: {str(e)[-120:]}")
                continue
            if tile is not None:
                tiles.append((t, tile))
        if not args.tiles and "mma" in args.paths.split(","):
            tiles += [(f"{bm}x{bn}x{bk}/{st}@{wm}x{wn}", TileConfig(bm, bn, bk, st, wm=wm, wn=wn))
                      for bm, bn, bk, st, wm, wn in MMA_TILES]
        if not args.tiles and "wgmma" in args.paths.split(",") and sm90:
            tiles += [(f"{bm}x{bn}x64/{st}@64x{bn}w", TileConfig(bm, bn, 64, st, wm=64, wn=bn, wgmma=True))
                      for bm, bn, st in WGMMA_TILES]
        return tiles

    cases = parse_cases(args.cases)
    _prebuild(cases, din, dout, args, lambda plan: [t for _, t in case_tiles(plan)])
    if "~" in args.tiles:
        flip_args = argparse.Namespace(**{**vars(args), "swap": not args.swap})
        _prebuild(cases, din, dout, flip_args,
                  lambda plan: [t for _, t in case_tiles(plan, plan)[1:]])
    ratios: dict[str, list[tuple[int, float]]] = {}  # label -> (case, its time / the heuristic's)
    for case in cases:
        inputs = core_inputs(case, din, dout, args.swap, args.order, args.op, args.compute)  # (the core alone)
        if inputs is None:
            print(f"{case.num}: split-K schedule, skipped (tccg.split_probe times those)")
            continue
        _, plan, ka, kb, d, ref = inputs
        tiles = [(label, tile, plan, ka, kb) for label, tile in case_tiles(plan)]
        if "~" in args.tiles:  # (tiles on the flipped plan: its own core inputs, the same random values)
            flip = core_inputs(case, din, dout, not args.swap, args.order, args.op, args.compute)
            if flip is not None:
                tiles += [(label, tile, flip[1], flip[2], flip[3])
                          for label, tile in case_tiles(plan, flip[1])[1:]]
        # verify every tile, then time them round-robin (`--rounds` rounds of 20 x 5 launches each, the
        # median of all): the H100's clocks drift down as it heats under its power cap, which favours
        # whichever tile is timed first when each is timed in one go (the same tile ran 0.4295 and
        # 0.4672 ms first and last in one call, results/v13_h100/call4/)
        runs = []
        for i, (label, tile, tplan, ta, tb) in enumerate(tiles):
            try:
                spec, run = tile_run(tplan, tile, ta, tb, d)
                d.fill(cupy.nan)
                run()
                err = float(cupy.abs(d.astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
                runs.append((i, label, tile, spec, run, err, []))  # (D in its own layout either way)
            except Exception as e:  # noqa: BLE001 - report and go on
                print(f"{case.num:2d}   {tile}: {type(e).__name__}: {str(e)[:150]}")
        round_robin([(run, times) for *_, run, _, times in runs], args.rounds)
        base_ms = statistics.median(runs[0][-1]) if runs and runs[0][0] == 0 else None
        for i, label, tile, spec, _, err, times in runs:
            ms = statistics.median(times)
            if i and base_ms and err < 1e-2:
                ratios.setdefault(label, []).append((case.num, ms / base_ms))
            tf = 2 * plan.M * plan.N * plan.K * plan.batch / ms / 1e9
            mark = "*" if i == 0 else "~" if label.startswith("~") else " "
            pers = ("t" if tile.tma else "x" if tile.ws else "") + ("p" if tile.persistent else "")
            sk = f"k{tile.sk_ctas}"
            cl = ((f" c{tile.cluster}" if tile.cluster > 1 else "") + (" e" if tile.chunked else "")
                  + (f" l{tile.l2_prefetch}" if tile.l2_prefetch else "") + (" r" if tile.resident_a else "")
                  + (" fa" if tile.frag_op_a else "") + (" fb" if tile.frag_op_b else ""))
            print(f"{case.num:2d} {mark} {tile.bm}x{tile.bn}x{tile.bk}/{tile.stages}{pers} {spec.path:5s} "
                  f"warp {tile.wm or tile.tm}x{tile.wn or tile.tn} g{tile.group_m} b{tile.min_blocks} {sk}{cl} "
                  f"{ms:8.4f} ms {tf:6.1f} TFLOP/s err {err:.1e}{'  WRONG' if not err < 1e-2 else ''}")
    print(summary(ratios))
    return 0


def summary(ratios: dict[str, list[tuple[int, float]]], margin: float = 0.03) -> str:
    """Per tile label: over the cases it ran (and verified) on, the geomean of its time over the heuristic's,
    the cases more than `margin` faster / slower, and the extremes."""
    lines = [f"== against the heuristic's tile (time / heuristic's; faster, slower: by more than {margin:.0%})"]
    for label, rs in ratios.items():
        gm = math.exp(sum(math.log(r) for _, r in rs) / len(rs))
        faster = [f"#{c} {r:.3f}" for c, r in rs if r < 1 - margin]
        slower = [f"#{c} {r:.3f}" for c, r in rs if r > 1 + margin]
        lines.append(f"{label:>28s}  {len(rs):2d} cases  geomean {gm:.3f}  faster: {', '.join(faster) or '-'}  "
                     f"slower: {', '.join(slower) or '-'}")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
