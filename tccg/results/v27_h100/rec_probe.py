"""v27 probe (H100): where a stage of TCCG #12 f16's persistent 256 x 160 tile spends its round trip. The heuristic
kernel (or with STAGES overridden) patched in this process to record clock64() stamps for CTAs 0 and 1 (one cluster)
over ring steps 81-404 (their tiles 2-5), into a global array read back after the launch:
  0 / 1: the loader thread before / after its wait for the stage to be free (its TMA issues follow at once),
  2 / 3: the first computing warp (warpgroup 0) before / after its wait for the stage to land,
  4 / 5: warpgroup 0's / 1's first warp after the stage's wgmmas are issued and the stage before it released,
  6: (call 10 on) a watcher, the loading warpgroup's idle second warp, when the stage's full barrier completed.
The epilogue (gett_rec2, warpgroups 0 and 1, the CTA's tiles 0-7): after the k-loop, after the barrier between the
warpgroups, after the stores and the stage's release.
Printed per CTA (cycles, median and 10 / 90th percentiles over the steps whose fields are all recorded): the step period,
the loader's wait, the lag from the later of the two warpgroups' releases of a stage to the loader seeing it free
(the other CTA's releases and the barrier's latency included), the loads' latency from issue to the computing warp
passing its wait where that warp waited, and the computing warp's wait.

Variants (arguments): `plain` (the heuristic kernel), `sN` (its tile on N stages), quad_probe.py's (`desc`, ...), and
`pp:NAME` for v25's pp_probe.py variant NAME alone (call 9 ran `pp:plain pp:sw128` with PYTHONPATH on commit 14ee108's
gettpy and tccg modules, whose #12 B stages are five 32-column atoms under the 64-byte swizzle: `pp:sw128` is three
64-column atoms under the 128-byte swizzle, as since).

    PYTHONPATH=. python3 tccg/results/v27_h100/rec_probe.py [variant ...]
"""
import dataclasses
import pathlib
import sys

import cupy
import numpy as np

import gettpy.kernels.render as render_mod
from gettpy.backends.gpu import launch
from gettpy.kernels import build
from gettpy.plan.tiles import kernel_spec
from tccg.suite import parse_cases
from tccg.tile_probe import core_inputs

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import quad_probe  # noqa: E402

K0, NK, NF = 81, 324, 7
ARRAY = 'extern "C" {\n__device__ long long gett_rec[2 * 7 * 512];\n}\n'
ANCHOR = "// descriptor: start address >> 4"
LOAD_WAIT = "                if (kstep >= STAGES) mbar_wait(&bars[STAGES + s], unsigned((kstep / STAGES - 1) & 1));\n"
FULL_WAIT = "      mbar_wait(&bars[s], unsigned((q / STAGES) & 1));\n"
STAGE = "          ws_stage<NL, BK / 16, W>(acc, stA(s), stB(s), crow, prev);\n"


def rec(field: int | str, step: str, who: str) -> str:
    return (f"if (blockIdx.x < 2 && ({who}) && ({step}) >= {K0} && ({step}) < {K0 + NK}) "
            f"gett_rec[blockIdx.x * {NF * 512} + ({field}) * 512 + int(({step}) - {K0})] = clock64();\n")


ARRAY2 = 'extern "C" {\n__device__ long long gett_rec2[2 * 2 * 3 * 8];\n}\n'
KLOOP_END = "      kstep += kend - kbeg;\n"
EPI_SYNC = "      else sync_compute();\n"
EPI_CALL = "                    &bars[STAGES + last], D, alpha, bz, m0, n0, wm0, tmD);\n"


def rec2(field: int) -> str:
    """(the epilogue's stamps: per CTA 0 / 1, warpgroup 0 / 1's first thread, field, tile 0-7 of the CTA)"""
    return (f"if (blockIdx.x < 2 && (threadIdx.x == 128 || threadIdx.x == 256) && kstep / KTILES - 1 < 8) "
            f"gett_rec2[((blockIdx.x * 2 + (threadIdx.x == 256)) * 3 + {field}) * 8 + int(kstep / KTILES - 1)] = "
            f"clock64();\n")


LOADER = "            if (Cfg::TMA_RANK == 0 || tid == 0) {\n"
# (field 6: a watcher, the loading warpgroup's second warp's first lane, idle otherwise, waits on each ring step's full
#  barrier in turn and stamps when it completes: when the stage's data had all landed)
WATCH = ("            if (blockIdx.x < 2 && tid == 32)\n"
         "              for (long long kk = p.kb; kk < p.ke; ++kk, ++kstep) {\n"
         "                mbar_wait(&bars[int(kstep % STAGES)], unsigned((kstep / STAGES) & 1));\n"
         "                " + rec(6, "kstep", "true") + "              }\n")


def patched(text: str) -> str:
    for old in (ANCHOR, LOAD_WAIT, STAGE, KLOOP_END, EPI_SYNC, EPI_CALL, LOADER):
        assert text.count(old) == 1, old
    if "mbar_nowait" not in text:  # (no watcher beside quad_probe's nowait / noload: stages it would wait on never land)
        text = text.replace(LOADER, WATCH + LOADER)
    text = text.replace(ANCHOR, ARRAY + ARRAY2 + ANCHOR)
    text = text.replace(KLOOP_END, KLOOP_END + "      " + rec2(0))
    text = text.replace(EPI_SYNC, EPI_SYNC.replace("sync_compute();", "{ sync_compute(); " + rec2(1) + "}"))
    text = text.replace(EPI_CALL, EPI_CALL + "      " + rec2(2))
    text = text.replace(LOAD_WAIT, "                " + rec(0, "kstep", "true") + LOAD_WAIT +
                        "                " + rec(1, "kstep", "true"))
    fw = FULL_WAIT if FULL_WAIT in text else FULL_WAIT.replace("mbar_wait", "mbar_nowait")  # (quad_probe's nowait)
    text = text.replace(fw, "      " + rec(2, "q", "threadIdx.x == 128") + fw + "      " + rec(3, "q", "threadIdx.x == 128"))
    return text.replace(STAGE, STAGE + "          " + rec("threadIdx.x == 128 ? 4 : 5", "q",
                                                          "threadIdx.x == 128 || threadIdx.x == 256"))


def q(x) -> str:
    x = np.asarray(x, dtype=np.float64)
    return f"{np.median(x):7.0f} [{np.percentile(x, 10):6.0f} {np.percentile(x, 90):6.0f}]"


def main(names: list[str]) -> None:
    case = parse_cases("12")[0]
    _sched, plan, ka, kb, d, ref = core_inputs(case, "f16", "f16")
    heur = kernel_spec(plan, False)
    here = render_mod.header_text()
    original = render_mod.header_text
    ptrs = (ka.data.ptr, kb.data.ptr, 0, d.data.ptr)
    for name in names:
        if name.startswith("s") and name[1:].isdigit():
            spec, text = dataclasses.replace(heur, tile=dataclasses.replace(heur.tile, stages=int(name[1:]))), here
        elif name.startswith("pp:"):  # (v25's pp_probe.py variants alone: on older trees without balanced columns)
            import pp_probe
            spec, text = pp_probe.variant(name[3:], heur, here)
            spec = spec if spec is not heur else dataclasses.replace(heur)
        else:
            spec, text = quad_probe.variant(name, heur, here)
        text = patched(text)
        render_mod.header_text = lambda t=text: t
        try:
            d.fill(cupy.nan)
            launch(spec, *ptrs, 1.0, 0.0)
            cupy.cuda.Device().synchronize()
            err = float(cupy.abs(d.astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
            mod = next(v[1] for k, v in build._FUNCS.items() if k[0] is spec or k[0] == spec)
            ptr = mod.get_global_var("gett_rec")
            mem = cupy.cuda.UnownedMemory(ptr, 2 * NF * 512 * 8, mod)
            arr = cupy.ndarray((2, NF, 512), dtype=cupy.int64, memptr=cupy.cuda.MemoryPointer(mem, 0))
            for _ in range(3):  # (the last launch's stamps)
                arr.fill(0)
                launch(spec, *ptrs, 1.0, 0.0)
                cupy.cuda.Device().synchronize()
            r = arr.get()[:, :, :NK].astype(np.float64)
            p2 = mod.get_global_var("gett_rec2")
            m2 = cupy.cuda.UnownedMemory(p2, 2 * 2 * 3 * 8 * 8, mod)
            e = cupy.ndarray((2, 2, 3, 8), dtype=cupy.int64, memptr=cupy.cuda.MemoryPointer(m2, 0)).get()
            e = e.astype(np.float64)
        finally:
            render_mod.header_text = original
            build._FUNCS.clear()
        s = spec.tile.stages
        print(f"12 f16 {name} ({s} stages): err {err:.1e}")
        for cta in (0, 1):
            p0, p1, c2, c3, c4, c5, w6 = r[cta]
            ks = [k for k in range(s, NK - 1) if min(p0[k], p1[k], c2[k], c3[k], c4[k + 1 - s], c5[k + 1 - s]) > 0
                  and c3[k + 1] > 0]
            period = [c3[k + 1] - c3[k] for k in ks]
            lwait = [p1[k] - p0[k] for k in ks]
            lag = [p1[k] - max(c4[k + 1 - s], c5[k + 1 - s]) for k in ks]
            waited = [k for k in ks if c3[k] - c2[k] > 100]
            lat = [c3[k] - p1[k] for k in waited]
            cwait = [c3[k] - c2[k] for k in ks]
            print(f"  cta {cta}: steps {len(ks)}, period {q(period)}, loader wait {q(lwait)}, release->free {q(lag)}")
            kw = [k for k in ks if w6[k] > 0]
            if kw:  # (the watcher's stamps: when each stage had landed)
                late = [w6[k] - c2[k] for k in kw]
                print(f"         watched {len(kw)}: issue->landed {q([w6[k] - p1[k] for k in kw])}, landed after the "
                      f"warp came to wait {sum(x > 0 for x in late)} times, by {q([x for x in late if x > 0] or [0])}")
            print(f"         issue->landed (the {len(waited)} steps the warp waited) {q(lat) if lat else '-'}, "
                  f"warp's wait {q(cwait)}")
            # (tile boundaries: a tile's last step (the epilogue follows it) and the excess over the median period of
            #  it and the 8 steps after it; whole tiles: first step to first step)
            med = float(np.median(period))
            bnd = [k for k in range(NK - 10) if (k + K0) % 81 == 80 and all(c3[k + j] > 0 for j in range(10))]
            if bnd:
                last = [c3[k + 1] - c3[k] for k in bnd]
                excess = [c3[k + 9] - c3[k] - 9 * med for k in bnd]
                tiles = [c3[k + 82] - c3[k + 1] for k in bnd if k + 82 < NK and c3[k + 82] > 0]
                print(f"         boundaries {len(bnd)}: last step {q(last)}, excess over 9 steps {q(excess)}, "
                      f"tiles {q(tiles) if tiles else '-'} (81 x median {81 * med:.0f})")
            # (the epilogue of tiles 1-3 of the CTA, warpgroup 0 / 1: k-loop end (its wgmmas drained) -> after the
            #  barrier between the warpgroups -> after the stores and the stage's release -> the next tile's first
            #  step past its wait (warpgroup 0's); chunked epilogues only)
            for wg in (0, 1):
                ts = [t for t in range(1, 4) if e[cta, wg, 0, t] > 0 and e[cta, wg, 2, t] > 0 and (t + 1) * 81 - K0 < NK]
                if ts:
                    bar = [e[cta, wg, 1, t] - e[cta, wg, 0, t] for t in ts]
                    st = [e[cta, wg, 2, t] - e[cta, wg, 1, t] for t in ts]
                    nxt = [c3[(t + 1) * 81 - K0] - e[cta, wg, 2, t] for t in ts]
                    print(f"         warpgroup {wg}, tiles {ts}: barrier {bar}, staging + stores {st}, "
                          f"-> next tile's first step {nxt}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["plain", "s3"])
