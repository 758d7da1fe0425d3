"""v22 probe (H100): TCCG #12 f16's core kernel, the heuristic's tile without and with serpentine k-walks
(TileConfig.serpentine: a CTA walks every other tile's k-tiles backwards), each checked against float64, then timed
round-robin, one CUDA-event batch of 5 launches each per round (medians). With rounds = 0 only the check launches
run, one per variant in order, then one each in reverse order (for Nsight Compute: plain, serpentine, serpentine,
plain).

    PYTHONPATH=. python3 tccg/results/v22_h100/serp_probe.py [rounds]
"""
import dataclasses
import statistics
import sys

import cupy

from gettpy.backends.gpu import launch
from gettpy.plan.tiles import kernel_spec
from tccg.suite import parse_cases
from tccg.tile_probe import core_inputs, round_robin


def main(rounds: int) -> None:
    sched, plan, ka, kb, d, ref = core_inputs(parse_cases("12")[0], "f16", "f16")
    heur = kernel_spec(plan, False).tile
    variants = [(label, kernel_spec(plan, False, tile=dataclasses.replace(heur, serpentine=on)))
                for label, on in (("plain", False), ("serpentine", True))]
    ptrs = (ka.data.ptr, kb.data.ptr, 0, d.data.ptr)
    timed = []
    for label, spec in variants:
        d.fill(cupy.nan)
        launch(spec, *ptrs, 1.0, 0.0)
        err = float(cupy.abs(d.astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
        timed.append((label, spec, err, []))
    if rounds == 0:  # (then each again, in reverse order: plain, serpentine, serpentine, plain)
        for _, spec, _, _ in reversed(timed):
            launch(spec, *ptrs, 1.0, 0.0)
        cupy.cuda.Device().synchronize()
        return
    round_robin([((lambda s: lambda: launch(s, *ptrs, 1.0, 0.0))(spec), times) for _, spec, _, times in timed], rounds,
                batches=1)
    base = statistics.median(timed[0][-1])
    for label, _spec, err, times in timed:
        ms, first = statistics.median(times), statistics.median(times[:20])
        print(f"12 f16 {label:12s} {ms:.4f} ms {ms / base:.4f}x (first 20 rounds {first:.4f}, "
              f"{first / statistics.median(timed[0][-1][:20]):.4f}x) {2 * plan.M * plan.N * plan.K / ms / 1e9:.0f} "
              f"TFLOP/s err {err:.1e}{'  WRONG' if not err < 1e-2 else ''}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
