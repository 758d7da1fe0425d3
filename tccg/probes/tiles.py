"""The core kernel of one TCCG contraction on a given tile, for tccg.probes.profile_case --tile: the tile syntax
(`parse_tile`), the schedule's core problem and its inputs with a float64 reference (`core_inputs`), and a launch
closure (`tile_run`). Needs a GPU to run a launch.
"""
from __future__ import annotations

import dataclasses
import re

import numpy as np

from ..runner import case_problem

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
    if m.group(12):  # (the kernel has no aligned stream-K form: refused by name, not by TileConfig's TypeError)
        raise SystemExit(f"--tiles: {text!r}: :sN (an aligned stream-K form) is not a kernel option; use :kN")
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
    schedule. swap, order, op, compute: as `core_schedule`."""
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

