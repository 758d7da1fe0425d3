"""v22 probe (H100): TCCG #12 f16's core kernel in variants of gett.cuh, each checked against float64, then timed
round-robin (one CUDA-event batch of 5 launches per variant per round; medians):

- v21: the heuristic's tile untrimmed, rendered with v21's gett.cuh, which the call script writes beside this file
  (`git show e6fceb0:gettpy/kernels/gett.cuh > tccg/results/v22_h100/gett_v21.cuh` before the call: the device has no
  git history);
- untrimmed: the same tile with this tree's header (the last k-tile's wgmmas past K skipped);
- trimmed: the v22 heuristic (TileConfig.trim: the last 9 columns 144 wide, the columns turned round per raster group),
  and the same with the narrow columns first (as calls 1-3 and the v22 headline ran it);
- and, with the header patched as the label says, the trimmed tile without the turn, the turn without the trims, and
  the trims issuing n = 160 wgmmas (so the only change left is which columns the tiles start at).

    PYTHONPATH=. python3 tccg/results/v22_h100/variants_probe.py [rounds]

It runs on the trimmed-column tree only (commit 60d2e0d; for call 4 with the narrow columns moved last, the NARROW and
TRIM_N0 lines below as gett.cuh had them): call 4 had the trims reverted, and the patches find their strings nowhere
else.
"""
import dataclasses
import pathlib
import statistics
import sys

import cupy

import gettpy.kernels.render as render_mod
from gettpy.backends.gpu import launch
from gettpy.kernels import build
from gettpy.plan.tiles import kernel_spec
from tccg.suite import parse_cases
from tccg.tile_probe import core_inputs, round_robin

TURN = "      if constexpr (TRIM > 0) tile_n = (tile_n + (first / U(GROUP_M)) * U(TRIM)) % U(TILES_N);\n"
NARROW = "return TRIM > 0 && n0 >= U(TILES_N - TRIM) * U(BN);"
TRIM_N0 = "n0 = tile_n * U(BN) - (TRIM > 0 && tile_n > U(TILES_N - TRIM) ? U(16) * (tile_n - U(TILES_N - TRIM)) : U(0));"
# (the narrow columns first, as calls 1-3 and the v22 headline ran them)
FIRST = ((NARROW, "return TRIM > 0 && n0 < U(TRIM) * U(BN - 16);"),
         (TRIM_N0, "n0 = tile_n * U(BN) - (TRIM > 0 ? U(16) * (tile_n < U(TRIM) ? tile_n : U(TRIM)) : U(0));"))
WGMMA = "using W = typename Cond<NARROW, typename Cfg::WgmmaT, typename Cfg::Wgmma>::type;"


def patched(text: str, *pairs) -> str:
    for old, new in pairs:
        assert old in text, old
        text = text.replace(old, new)
    return text


def main(rounds: int) -> None:
    sched, plan, ka, kb, d, ref = core_inputs(parse_cases("12")[0], "f16", "f16")
    heur = kernel_spec(plan, False)
    untrimmed = dataclasses.replace(heur, tile=dataclasses.replace(heur.tile, trim=False))
    here = render_mod.header_text()
    variants = [
        ("v21", untrimmed, (pathlib.Path(__file__).parent / "gett_v21.cuh").read_text()),
        ("untrimmed", untrimmed, here),
        ("trimmed (heuristic)", heur, here),
        ("trimmed, narrow first", heur, patched(here, *FIRST)),
        ("trimmed, no turn", heur, patched(here, (TURN, ""))),
        ("turn only", heur, patched(here, (NARROW, "return false;"), (TRIM_N0, "n0 = tile_n * U(BN);"))),
        ("trimmed, n = 160 wgmmas", heur, patched(here, (WGMMA, "using W = typename Cfg::Wgmma;"))),
    ]
    ptrs = (ka.data.ptr, kb.data.ptr, 0, d.data.ptr)
    timed, kept = [], []
    original = render_mod.header_text
    for label, spec, text in variants:
        spec = dataclasses.replace(spec)  # (a spec object of its own: its own launch-cache entry)
        render_mod.header_text = lambda t=text: t
        try:
            d.fill(cupy.nan)
            launch(spec, *ptrs, 1.0, 0.0)  # (built with this header; its launch entry keeps the function)
            kept.append(dict(build._FUNCS))  # (the module stays loaded)
            build._FUNCS.clear()
        finally:
            render_mod.header_text = original
        err = float(cupy.abs(d.astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
        timed.append((label, spec, err, []))
    # (one batch of 5 launches per variant per round, the variants in turn: each sees the same clocks as the others
    #  through the H100's warming, which longer batches in a fixed order did not, call2/)
    if rounds == 0:  # (the checks' launches alone, one per variant in order: for Nsight Compute)
        return
    round_robin([((lambda s: lambda: launch(s, *ptrs, 1.0, 0.0))(spec), times) for _, spec, _, times in timed], rounds,
                batches=1)
    base = statistics.median(timed[0][-1])
    for label, spec, err, times in timed:
        ms = statistics.median(times)
        first = statistics.median(times[:20])  # (the first 20 rounds: the GPU still cool)
        print(f"12 f16 {label:26s} trim_cols={spec.trim_cols} {ms:.4f} ms {ms / base:.4f}x (first 20 rounds {first:.4f}, "
              f"{first / statistics.median(timed[0][-1][:20]):.4f}x) {2 * plan.M * plan.N * plan.K / ms / 1e9:.0f} TFLOP/s "
              f"err {err:.1e}{'  WRONG' if not err < 1e-2 else ''}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
