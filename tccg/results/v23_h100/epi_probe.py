"""v23 probe (H100): what TCCG #12 f16's chunked epilogue and pipeline depth cost its persistent 256 x 160 tile.
Variants of the heuristic core kernel (gett.cuh patched in this process only): `plain`; `nostore` (the staging
with stmatrix kept, the 16-byte global stores and the shared reads feeding them dropped); `noglobal` (the shared
reads kept, the global stores behind a test that never holds); `halfd` (the first 64-row round's stores only);
`tinyd` (the same stores, each CTA's into an 80 KB block of D of its own, rewritten every tile, so that they stay
in the L2 and never reach DRAM); `hotd` (the same stores into 8 KB of D per CTA, each line rewritten ten times a
tile: they stay in the L2); `oddlate` (odd clusters spin 57,000 cycles, half a tile, before their first: their
tile boundaries, and their write bursts, fall between the others'); `noepi` (no staging and no stores: the warps
only release the stage); `nobar` (no barrier between the two warpgroups before the staging, which races); `owna`
(each warp stages 80 columns at a time in its own slice of its warpgroup's A rows of the last stage, which the
other warpgroup does not read: no barrier needed); `stagN` (`owna`, the second computing warpgroup starting its
first tile N cycles late, so that one warpgroup's epilogue may overlap the other's wgmmas); `tmast`
(TileConfig.tma_store: each warp's rows stored by the TMA unit; `tmast1`, `tmast2`: gett.cuh's TMA_HOLD 1 and 2,
the waits for the unit's reads deferred); `aheadN` (gett.cuh's L2_AHEAD = N: the loaders fetch the k-tile N
further on into the L2 as they load one); `s3` (3 stages, cuBLAS's depth for this tile). `nostore`, `noepi` and
`nobar` leave D unwritten or wrong, so they are not checked against float64. torch.einsum (cuBLAS) on the same
inputs runs beside them. With rounds = 0 only launches for Nsight Compute: one each in the order given (the
checks), then one each in reverse; else timed in turn, one batch of 5 launches each per round. `trickle`
(gett.cuh's TRICKLE probe switch): each warp stores its first 64-row round at the tile's end as usual and holds
the second packed in registers, which the next tile's k-loop stores four 4-byte pairs a k-tile.

`tmast1`, `tmast2` (call 3) and `aheadN` (call 7) patch probe switches gett.cuh had at commit 96fe6c5 (TMA_HOLD,
L2_AHEAD), `trickle` (call 11) one it had at a9a476e (TRICKLE, whose epilogue call this file then matched), all
since taken out: on later code they stop at their asserts.

    PYTHONPATH=. python3 tccg/results/v23_h100/epi_probe.py [rounds] [variants, comma list]
"""
import dataclasses
import statistics
import sys

import cupy

import gettpy.kernels.render as render_mod
from gettpy.backends.gpu import launch
from gettpy.kernels import build
from gettpy.plan.tiles import kernel_spec
from tccg.suite import parse_cases
from tccg.tile_probe import core_inputs, round_robin

STORE = """          *reinterpret_cast<Pack<TD, VD>*>(Db + gett_offset<I>(gm, typename Cfg::MapDm{}) +
                                           gett_offset<I>(gn, typename Cfg::MapDn{})) = out;"""
TINY = """          *reinterpret_cast<Pack<TD, VD>*>(Db + I(blockIdx.x) * I(BM * BN) + I(gm - m0) * I(BN) +
                                           I(gn - n0)) = out;"""
HOT = """          *reinterpret_cast<Pack<TD, VD>*>(Db + I(blockIdx.x) * I(4096) +
                                           (I(gm - m0) * I(BN) + I(gn - n0)) % I(4096)) = out;"""
WALK = """      auto walk = [&](const bool loader) {
        long long kstep = 0;"""
ODDLATE = """
        if ((blockIdx.x / CLUSTER) & 1) { const long long t0_ = clock64(); while (clock64() - t0_ < 57000) {} }"""
CALLS = """    if (alpha == TAcc(1))
      warp_stores<false>(acc, es, Db, alpha, m0, n0, wm0, lane, tmD, bz);
    else
      warp_stores<true>(acc, es, Db, alpha, m0, n0, wm0, lane, tmD, bz);"""

BAR = """      sync_compute();
    }  // (persistent:"""

COLS = "static constexpr int EPI_COLS = Cfg::EPI_COLS,"
REGION = ("TE* es = reinterpret_cast<TE*>(cw < EPI_REG_A ? sa + cw * EPI_REG_BYTES : "
          "sb + (cw - EPI_REG_A) * EPI_REG_BYTES);")
NOBAR = "      if constexpr (!EPI_CHUNK) sync_compute();\n    }  // (persistent:"
TRICKLE = "TRICKLE = false;"
AHEAD = "L2_AHEAD = 0;"
HOLD = "TMA_HOLD = TMA_STORE ? 0 : 0;"
CROW = "      const int crow = ((warp >> 2) - 1) * MW;"


def variant(name: str, heur, text: str):
    """(spec, header text) of a variant, or of several joined by + (each applied to the one before)."""
    if "+" in name:
        spec = heur
        for part in name.split("+"):
            spec, text = variant(part, spec, text)
        return spec, text
    if name == "plain":
        return dataclasses.replace(heur), text
    if name == "nostore":
        return dataclasses.replace(heur), text.replace(STORE, "          (void)out;")
    if name == "tinyd":  # (each CTA's stores into an 80 KB block of its own, rewritten every tile: no DRAM writes)
        return dataclasses.replace(heur), text.replace(STORE, TINY)
    if name == "noglobal":  # (the shared reads kept, the stores behind a test that never holds)
        return dataclasses.replace(heur), text.replace(STORE, "          if (float(out.e[0]) == 12345.f && alpha == "
                                                       "TAcc(-7))\n" + STORE)
    if name == "halfd":  # (the first 64-row round's stores only)
        return dataclasses.replace(heur), text.replace(STORE, "          if (mi == 0)\n" + STORE)
    if name == "hotd":  # (each CTA's stores into 8 KB of its own, rewritten ten times a tile: they stay in the L2)
        return dataclasses.replace(heur), text.replace(STORE, HOT)
    if name == "oddlate":  # (odd clusters start half a tile late: their tile boundaries fall between the others')
        assert WALK in text
        return dataclasses.replace(heur), text.replace(WALK, WALK + ODDLATE)
    if name == "noepi":
        return dataclasses.replace(heur), text.replace(CALLS, "    (void)es; (void)Db; (void)lane; (void)tmD;")
    if name == "nobar":  # (races: a warp may stage D in B while the other warpgroup's wgmmas still read it)
        assert BAR in text
        return dataclasses.replace(heur), text.replace(BAR, NOBAR)
    if name == "owna" or name.startswith("stag"):
        # each warp stages in its own slice of its warpgroup's A rows of the last stage, which no other warpgroup's
        # wgmma reads, so no barrier; stagN: the second computing warpgroup starts its first tile N cycles late
        for old in (COLS, REGION, BAR):
            assert old in text
        t = text.replace(COLS, "static constexpr int EPI_COLS = 80,").replace(
            REGION, "TE* es = reinterpret_cast<TE*>(sa + cw * (A_STAGE_BYTES / EPI_WARPS));").replace(
            BAR, NOBAR)
        if name.startswith("stag"):
            assert CROW in t
            t = t.replace(CROW, CROW + "\n      if (kstep == 0 && crow != 0) { const long long t0_ = clock64(); "
                          f"while (clock64() - t0_ < {int(name[4:])}) {{}} }}")
        return dataclasses.replace(heur), t
    if name.startswith("tmast"):  # (TileConfig.tma_store: the chunked epilogue's stores through the TMA unit)
        hold = name[5:] or "0"  # (tmast1, tmast2: gett.cuh's TMA_HOLD, at commit 96fe6c5)
        assert hold == "0" or HOLD in text
        return (dataclasses.replace(heur, tile=dataclasses.replace(heur.tile, tma_store=True)),
                text.replace(HOLD, f"TMA_HOLD = TMA_STORE ? {hold} : 0;"))
    if name.startswith("ahead"):  # (aheadN: gett.cuh's L2_AHEAD = N)
        assert AHEAD in text
        return dataclasses.replace(heur), text.replace(AHEAD, f"L2_AHEAD = {int(name[5:])};")
    if name == "trickle":  # (gett.cuh's TRICKLE: the second 64-row round held and stored during the next tile)
        assert TRICKLE in text
        return dataclasses.replace(heur), text.replace(TRICKLE, "TRICKLE = true;")
    if name == "s3":
        return dataclasses.replace(heur, tile=dataclasses.replace(heur.tile, stages=3)), text
    raise SystemExit(f"unknown variant {name}")


def main(rounds: int, names: list[str]) -> None:
    case = parse_cases("12")[0]
    sched, plan, ka, kb, d, ref = core_inputs(case, "f16", "f16")
    heur = kernel_spec(plan, False)
    here = render_mod.header_text()
    assert STORE in here and CALLS in here
    ptrs = (ka.data.ptr, kb.data.ptr, 0, d.data.ptr)
    timed = []
    original = render_mod.header_text
    for name in names:
        if name == "torch":
            import torch

            assert sched.pack_a is None and sched.pack_b is None
            a_, b_ = (kb, ka) if plan.part.swapped else (ka, kb)
            ta, tb = torch.as_tensor(a_, device="cuda"), torch.as_tensor(b_, device="cuda")
            subs = case.einsum_subscripts()
            timed.append((name, (lambda s=subs, x=ta, y=tb: torch.einsum(s, x, y)), float("nan"), []))
            timed[-1][1]()
            continue
        spec, text = variant(name, heur, here)
        render_mod.header_text = lambda t=text: t
        try:
            d.fill(cupy.nan)
            launch(spec, *ptrs, 1.0, 0.0)
            build._FUNCS.clear()
        finally:
            render_mod.header_text = original
        err = float(cupy.abs(d.astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
        timed.append((name, (lambda s=spec: launch(s, *ptrs, 1.0, 0.0)), err, []))
    cupy.cuda.Device().synchronize()
    if rounds == 0:
        for _, run, _, _ in timed[::-1]:
            run()
        cupy.cuda.Device().synchronize()
        print([f"{name} err {err:.1e}" for name, _, err, _ in timed])
        return
    round_robin([(run, times) for _, run, _, times in timed], rounds, batches=1)
    base = statistics.median(timed[0][-1])
    for name, _run, err, times in timed:
        ms = statistics.median(times)
        print(f"12 f16 {name:8s} {ms:.4f} ms {ms / base:.4f}x err {err:.1e}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300,
         (sys.argv[2] if len(sys.argv) > 2 else "plain,nostore,noepi,s3,torch").split(","))
