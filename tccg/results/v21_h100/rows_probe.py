"""v21 probe (H100): TCCG #2's data with A's rows contiguous (the big input as a [92352 x 312] k-contiguous
matrix, D[r, b] column-major: one stride term on M), so that TMA reads a 256-row tile in one box. The
cp.async heuristic tile against TMA tiles on it, verified against float64, then timed round-robin (median of
CUDA-event batches). An upper bound on what TMA could give #2 if its tiles did not straddle a's slabs.

    PYTHONPATH=. python3 tccg/results/v21_h100/rows_probe.py [rounds]
"""
import statistics
import sys

import cupy
import numpy as np

from gettpy.backends.gpu import launch
from gettpy.plan import ContractionProblem, TensorInfo, make_plan
from gettpy.plan.tiles import kernel_spec
from tccg.tile_probe import parse_tile

R, K, N = 92352, 312, 24
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
for dout in ("f16", "f32"):
    rng = np.random.default_rng(2)
    a = cupy.asarray(rng.uniform(-1, 1, (K, R)).astype(np.float16), order="F")  # A[d, r]
    b = cupy.asarray(rng.uniform(-1, 1, (N, K)).astype(np.float16), order="F")  # B[b, d]
    d = cupy.empty((R, N), dtype=np.float16 if dout == "f16" else np.float32, order="F")

    def ti(name, modes, x, dt):
        return TensorInfo(name, tuple(modes), tuple(s // x.itemsize for s in x.strides), dt)

    prob = ContractionProblem(ti("A", "dr", a, "f16"), ti("B", "bd", b, "f16"), None, ti("D", "rb", d, dout),
                              (("b", N), ("d", K), ("r", R)))
    plan = make_plan(prob)
    ka, kb = (b, a) if plan.part.swapped else (a, b)
    ref = a.T.astype(cupy.float64) @ b.T.astype(cupy.float64)
    tiles = [("heuristic", None)] + [(t, parse_tile(t)) for t in (
        "256x32x64/4@64x32wtp", "256x32x64/5@64x32wtp", "256x32x64/4@64x32wt", "128x32x64/8@64x32wtp")]
    runs = []
    for label, tile in tiles:
        try:
            spec = kernel_spec(plan, False, tile=tile) if tile else kernel_spec(plan, False)
            ptrs = (ka.data.ptr, kb.data.ptr, 0, d.data.ptr)
            run = (lambda s, p: lambda: launch(s, *p, 1.0, 0.0))(spec, ptrs)
            d.fill(cupy.nan)
            run()
            err = float(cupy.abs(d.astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
            runs.append((label, spec, run, err, []))
        except Exception as e:  # noqa: BLE001
            print(f"{dout} {label}: {type(e).__name__}: {str(e)[:200]}")
    for _ in range(rounds):
        for *_, run, _, times in runs:
            for _ in range(20):
                e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
                e0.record()
                for _ in range(5):
                    run()
                e1.record()
                e1.synchronize()
                times.append(cupy.cuda.get_elapsed_time(e0, e1) / 5)
    base = statistics.median(runs[0][-1])
    for label, spec, _, err, times in runs:
        ms = statistics.median(times)
        gbs = (R * K * 2 + R * N * d.itemsize) / ms / 1e6
        t = spec.tile
        print(f"{dout} {label:24s} {t.bm}x{t.bn}x{t.bk}/{t.stages} tma={t.tma} p={t.persistent} l2={t.l2_prefetch}"
              f" {ms:.4f} ms {ms / base:.3f}x {gbs:.0f} GB/s err {err:.1e}{'  WRONG' if not err < 1e-2 else ''}")
