"""v21 probes (H100): one contraction's core under forced tiles, outside the TCCG suite.

`probe` plans the contraction of the given arrays, verifies each tile against float64, then times the tiles
round-robin (median of CUDA-event batches). Run as a script (call 7): TCCG #2's data with A's rows contiguous
(the big input as a [92352 x 312] k-contiguous matrix, D[r, b] column-major: one stride term on M), so that TMA
reads a 256-row tile in one box: the cp.async heuristic tile against TMA tiles, an upper bound on what TMA could
give #2 if its tiles did not straddle a's slabs.

    PYTHONPATH=. python3 tccg/results/v21_h100/rows_probe.py [rounds]
"""
import statistics
import sys

import cupy
import numpy as np

from gettpy.backends.gpu import launch
from gettpy.plan import ContractionProblem, TensorInfo, make_plan
from gettpy.plan.tiles import kernel_spec
from tccg.tile_probe import parse_tile, round_robin


def probe(name, modes, arrays, dtypes, tiles, rounds, nbytes):
    """Print one line per tile (the heuristic's first) for D = A * B over `modes` ("A,B->D" strings of single
    letters), `arrays` the cupy arrays (A, B, D), `dtypes` their short names; nbytes: bytes moved, for GB/s."""
    a, b, d = arrays
    (ma, mb), md = modes.split("->")[0].split(","), modes.split("->")[1]

    def ti(tname, m, x, dt):
        return TensorInfo(tname, tuple(m), tuple(s // x.itemsize for s in x.strides), dt)

    ext = sorted({**dict(zip(ma, a.shape, strict=True)), **dict(zip(mb, b.shape, strict=True))}.items())
    plan = make_plan(ContractionProblem(ti("A", ma, a, dtypes[0]), ti("B", mb, b, dtypes[1]), None,
                                        ti("D", md, d, dtypes[2]), tuple(ext)))
    ka, kb = (b, a) if plan.part.swapped else (a, b)
    ref = cupy.einsum(modes, a.astype(cupy.float64), b.astype(cupy.float64))
    runs = []
    for label, tile in [("heuristic", None)] + [(t, parse_tile(t)) for t in tiles]:
        try:
            spec = kernel_spec(plan, False, tile=tile) if tile else kernel_spec(plan, False)
            run = (lambda s, p: lambda: launch(s, *p, 1.0, 0.0))(spec, (ka.data.ptr, kb.data.ptr, 0, d.data.ptr))
            d.fill(cupy.nan)
            run()
            err = float(cupy.abs(d.astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
            runs.append((label, spec, run, err, []))
        except Exception as e:  # noqa: BLE001
            print(f"{name} {label}: {type(e).__name__}: {str(e)[:200]}")
    round_robin([(run, times) for *_, run, _, times in runs], rounds)
    base = statistics.median(runs[0][-1])
    for label, spec, _, err, times in runs:
        ms = statistics.median(times)
        t = spec.tile
        print(f"{name} {label:32s} {t.bm}x{t.bn}x{t.bk}/{t.stages} tma={t.tma} rows={spec.tma_rows} "
              f"p={t.persistent} c={t.cluster} l2={t.l2_prefetch} {ms:.4f} ms {ms / base:.3f}x "
              f"{nbytes / ms / 1e6:.0f} GB/s {2 * plan.M * plan.N * plan.K / ms / 1e9:.0f} TFLOP/s "
              f"err {err:.1e}{'  WRONG' if not err < 1e-2 else ''}")


if __name__ == "__main__":
    R, K, N = 92352, 312, 24
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    for dout in ("f16", "f32"):
        rng = np.random.default_rng(2)
        a = cupy.asarray(rng.uniform(-1, 1, (K, R)).astype(np.float16), order="F")  # A[d, r]
        b = cupy.asarray(rng.uniform(-1, 1, (N, K)).astype(np.float16), order="F")  # B[b, d]
        d = cupy.empty((R, N), dtype=np.float16 if dout == "f16" else np.float32, order="F")
        probe(dout, "dr,bd->rb", (a, b, d), ("f16", "f16", dout),
              ("256x32x64/4@64x32wtp", "256x32x64/5@64x32wtp", "256x32x64/4@64x32wt", "128x32x64/8@64x32wtp"),
              rounds, R * K * 2 + R * N * d.itemsize)
