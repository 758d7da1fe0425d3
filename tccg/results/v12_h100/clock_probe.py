"""Session 9: SM clock and board power while one TCCG contraction's core kernel runs back to back, against
torch.einsum on the same operands (is the compute-bound f16 GEMM held by the power limit?).

    python3 tccg/results/v12_h100/clock_probe.py 12 [tile ...]

nvidia-smi samples clocks.sm, power.draw, the active clock event reasons (bitmask: 0x4 SW power cap,
0x20 SW thermal, 0x40 HW thermal, 0x80 HW power brake), temperature and the power limit every 50 ms for
~2 s of each; prints the medians and the time per call (CUDA events over the same loop).
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import time

import cupy
import numpy as np
import torch

from gettpy.backends.gpu import launch
from gettpy.plan.schedule import make_schedule
from gettpy.plan.tiles import kernel_spec
from tccg.runner import case_problem
from tccg.suite import parse_cases
from tccg.tile_probe import parse_tile


def sampled(fn, seconds=2.0):
    smi = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm,power.draw,clocks_event_reasons.active,"
                            "temperature.gpu,enforced.power.limit", "--format=csv,noheader,nounits", "-lms", "50"],
                           stdout=subprocess.PIPE, text=True)
    time.sleep(0.3)
    e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
    n, t_end = 0, time.time() + seconds
    e0.record()
    while time.time() < t_end:
        for _ in range(20):
            fn()
        n += 20
        cupy.cuda.get_current_stream().synchronize()
    e1.record()
    e1.synchronize()
    ms = cupy.cuda.get_elapsed_time(e0, e1) / n
    smi.terminate()
    rows = [[x.strip() for x in r.split(",")] for r in smi.communicate()[0].strip().splitlines()]
    rows = rows[4:-2]  # (the loop's samples)
    reasons = statistics.mode(r[2] for r in rows)
    extra = f"reasons {reasons} temp {statistics.median(float(r[3]) for r in rows):.0f} C limit {rows[0][4]} W"
    return (ms, statistics.median(float(r[0]) for r in rows), statistics.median(float(r[1]) for r in rows),
            f"{len(rows)} samples, {extra}")


def main():
    case = parse_cases(sys.argv[1])[0]
    sched = make_schedule(case_problem(case, "f16", "f16"))
    plan = sched.core
    assert sched.pack_a is None and sched.pack_b is None and sched.stage_d is None, "a plain core only"
    rng = np.random.default_rng(0)
    shapes = case.shapes()
    a = cupy.asarray(np.asfortranarray(rng.uniform(-1, 1, shapes[0]).astype(np.float16)), order="F")
    b = cupy.asarray(np.asfortranarray(rng.uniform(-1, 1, shapes[1]).astype(np.float16)), order="F")
    d = cupy.empty(shapes[2], dtype=np.float16, order="F")
    ka, kb = (b, a) if plan.part.swapped else (a, b)
    flop = 2 * plan.M * plan.N * plan.K * plan.batch
    tiles = [kernel_spec(plan, False).tile] + [parse_tile(t) for t in sys.argv[2:]]
    ta, tb = torch.as_tensor(a, device="cuda"), torch.as_tensor(b, device="cuda")
    sub = case.einsum_subscripts()
    for tile in tiles:
        spec = kernel_spec(plan, False, tile=tile)
        ms, clk, pw, ns = sampled(lambda s=spec: launch(s, ka.data.ptr, kb.data.ptr, 0, d.data.ptr, 1.0, 0.0))
        print(f"{case.num} gettpy {tile.bm}x{tile.bn}x{tile.bk}/{tile.stages} g{tile.group_m} "
              f"k{tile.sk_ctas}s{tile.sk_split}: {ms:.4f} ms {flop / ms / 1e9:6.1f} TFLOP/s  SM clock {clk:.0f} MHz  "
              f"power {pw:.0f} W  ({ns})")
    ms, clk, pw, ns = sampled(lambda: torch.einsum(sub, ta, tb))
    print(f"{case.num} torch.einsum: {ms:.4f} ms {flop / ms / 1e9:6.1f} TFLOP/s  SM clock {clk:.0f} MHz  "
          f"power {pw:.0f} W  ({ns})")


if __name__ == "__main__":
    main()
