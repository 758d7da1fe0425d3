"""v29 probe (H100): does #12's row pitch cost it energy?

Under the power cap (v28 call 14-19, v29 call 1), #12 (M 5120 x N 5136, K = 5136) runs 1.5% longer than the same
kernel on M = N = 5120 while torch.matmul runs both in the same time. #12's column-major A[a, c], B[c, b] and D[a, b]
have a pitch of 5136 halves, 10272 bytes: 32 bytes past a multiple of 128, so three of every four 128-byte rows of a
TMA box (64 halves along the contiguous mode) straddle two L2 lines; in the M = 5120 case A's pitch is 10240.
This probe times #12 with each operand's pitch padded to 5184 halves (10368 bytes, a multiple of 128; the same values,
the other rows unused), all three padded, and torch.matmul on the unpadded and the padded inputs, each checked against
float64, round-robin with CUDA events, then (`--sustain S`) back to back for S seconds each, forward then reversed,
with nvidia-smi sampling the SM clock and board power (v12's clock_probe.sampled).

    PYTHONPATH=. python3 tccg/results/v29_h100/pitch_probe.py [--sustain 3]
"""
from __future__ import annotations

import pathlib
import statistics
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve()
MA, NB, K, PAD = 5136, 5120, 5136, 5184


def main(args: list[str]) -> None:
    import cupy
    import torch

    sys.path.insert(0, str(HERE.parents[1] / "v12_h100"))
    from gettpy.plan.problem import ContractionProblem, TensorInfo
    from gettpy.plan.schedule import make_schedule
    from gettpy.plan.tiles import kernel_spec
    from tccg.tile_probe import round_robin, tile_run

    sustain = float(args[args.index("--sustain") + 1]) if "--sustain" in args else 0.0
    rng = np.random.default_rng(12)
    ha = rng.uniform(-1, 1, (MA, K)).astype(np.float16)
    hb = rng.uniform(-1, 1, (K, NB)).astype(np.float16)
    ref = cupy.asarray(ha).astype(cupy.float64) @ cupy.asarray(hb).astype(cupy.float64)

    def placed(h, ld):  # (column-major, pitch ld: the first h.shape[0] rows of an (ld, cols) array)
        x = cupy.zeros((ld, h.shape[1]), dtype=cupy.float16, order="F")
        x[:h.shape[0]] = cupy.asarray(h)
        return x[:h.shape[0]]

    runs = []
    for name, (lda, ldb, ldd) in {"H": (MA, K, MA), "A padded": (PAD, K, MA), "B padded": (MA, PAD, MA),
                                  "D padded": (MA, K, PAD), "all padded": (PAD, PAD, PAD)}.items():
        a, b = placed(ha, lda), placed(hb, ldb)
        d = cupy.zeros((ldd, NB), dtype=cupy.float16, order="F")[:MA]
        prob = ContractionProblem(TensorInfo("A", ("a", "c"), (1, lda), "f16"), TensorInfo("B", ("c", "b"), (1, ldb), "f16"),
                                  None, TensorInfo("D", ("a", "b"), (1, ldd), "f16"), (("a", MA), ("b", NB), ("c", K)))
        sched = make_schedule(prob)
        assert sched.pack_a is None and sched.pack_b is None and sched.stage_d is None, sched
        plan = sched.core
        ka, kb = (b, a) if plan.part.swapped else (a, b)
        heur = kernel_spec(plan, False)
        spec, run = tile_run(plan, None, ka, kb, d)
        d.fill(cupy.nan)
        run()
        err = float(cupy.abs(d.astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
        print(f"{name}: lda {lda} ldb {ldb} ldd {ldd}; M {plan.M} N {plan.N}; {heur.tile}; err {err:.1e}", flush=True)
        assert err < 1e-2
        runs.append((f"{name}", run, []))
        if name in ("H", "all padded"):
            ta, tb = torch.as_tensor(a, device="cuda"), torch.as_tensor(b, device="cuda")
            out = torch.empty((MA, NB), dtype=torch.float16, device="cuda")
            torch.matmul(ta, tb, out=out)
            terr = float(cupy.abs(cupy.asarray(out).astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
            print(f"  torch.matmul on {name} inputs (strides {ta.stride()}, {tb.stride()}): err {terr:.1e}", flush=True)
            assert terr < 1e-2
            runs.append((f"torch {name}", lambda ta=ta, tb=tb, out=out: torch.matmul(ta, tb, out=out), []))
    round_robin([(run, times) for _, run, times in runs], 5)
    base = statistics.median(runs[1][2])
    for label, _, times in runs:
        ms = statistics.median(times)
        print(f"{label:24s} {ms:8.4f} ms  {2 * MA * NB * K / ms / 1e9:6.1f} TFLOP/s  {ms / base:6.3f}x torch H", flush=True)
    if sustain:
        from clock_probe import sampled

        print(f"sustained, {sustain:.0f} s each, forward then reversed:")
        for label, run, _ in runs + runs[::-1]:
            ms, clk, pw, ns = sampled(run, sustain)
            print(f"{label:24s} {ms:8.4f} ms  {2 * MA * NB * K / ms / 1e9:6.1f} TFLOP/s  SM {clk:5.0f} MHz  {pw:4.0f} W  "
                  f"{pw * ms:6.1f} mJ a call ({ns})", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
