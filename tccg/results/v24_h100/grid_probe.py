"""v24 probe (H100): TCCG #2 f16's persistent core kernel launched on fewer CTAs than the 132 that fit. Its 361 tiles
of 256 x 32 leave 97 CTAs with 3 tiles and 35 with 2 on 132 (call 4: the 2-tile CTAs idle for the last 6-10 us); on
121 CTAs 119 take 3 and 2 take 2, so the SMs that are busy stay busy to the end, and the question is whether 121
SMs still pull the 62 MB as fast. The heuristic kernel, each grid a copy of its spec launched first with the launcher's
grid capped (gettpy.backends.gpu.launch_grid), checked against float64, then timed round-robin (tccg.tile_probe).

    PYTHONPATH=. python3 tccg/results/v24_h100/grid_probe.py [case] [grids, comma list] [rounds]
"""
import dataclasses
import statistics
import sys

import cupy

from gettpy.backends import gpu
from gettpy.plan.tiles import kernel_spec
from tccg.suite import parse_cases
from tccg.tile_probe import core_inputs, round_robin


def main(num: str, grids: list[int], rounds: int) -> None:
    case = parse_cases(num)[0]
    sched, plan, ka, kb, d, ref = core_inputs(case, "f16", "f16")
    heur = kernel_spec(plan, False)
    assert heur.tile.persistent, heur.tile
    ptrs = (ka.data.ptr, kb.data.ptr, 0, d.data.ptr)
    original = gpu.launch_grid
    runs = []
    for n in grids:
        spec = dataclasses.replace(heur)  # (a new object: the launcher caches the grid per spec object)
        gpu.launch_grid = lambda s, f, n=n: min(original(s, f), n)
        try:
            d.fill(cupy.nan)
            gpu.launch(spec, *ptrs, 1.0, 0.0)
        finally:
            gpu.launch_grid = original
        cupy.cuda.Device().synchronize()
        err = float(cupy.abs(d.astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
        assert err < 1e-2, (n, err)
        runs.append((n, err, (lambda s=spec: gpu.launch(s, *ptrs, 1.0, 0.0)), []))
    round_robin([(run, times) for _, _, run, times in runs], rounds)
    base = statistics.median(runs[0][-1])
    tiles = heur.grid
    for n, err, _run, times in runs:
        ms = statistics.median(times)
        most = -(-tiles // n)
        print(f"{num} f16 grid {n:4d} ({tiles} tiles, {most} max a CTA, {tiles % n or n} CTAs with {most}) "
              f"{ms:.4f} ms {ms / base:.4f}x err {err:.1e}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "2",
         [int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "132,128,124,121,120,116").split(",")],
         int(sys.argv[3]) if len(sys.argv) > 3 else 5)
