"""v22 probe (H100): TCCG #41 f16's core kernel (write-bound: a 75 MB D) with D placed at different offsets into one
allocation, each checked against float64, timed round-robin (one CUDA-event batch of 5 launches per offset per round,
medians): does where D lands decide whether #41 runs in its 0.0345 ms mode or its 0.040 ms one (headline3)?

    PYTHONPATH=. python3 tccg/results/v22_h100/offset_probe.py [rounds]
"""
import statistics
import sys

import cupy

from gettpy.backends.gpu import launch
from gettpy.plan.tiles import kernel_spec
from tccg.suite import parse_cases
from tccg.tile_probe import core_inputs, round_robin

OFFSETS_KB = (0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)


def main(rounds: int) -> None:
    sched, plan, ka, kb, d, ref = core_inputs(parse_cases("41")[0], "f16", "f16")
    spec = kernel_spec(plan, False)
    buf = cupy.empty(d.nbytes + (max(OFFSETS_KB) << 10), dtype=cupy.uint8)
    runs = []
    for off in OFFSETS_KB:
        dd = cupy.ndarray(d.shape, d.dtype, memptr=buf.data + (off << 10), strides=d.strides)
        dd.fill(cupy.nan)
        launch(spec, ka.data.ptr, kb.data.ptr, 0, dd.data.ptr, 1.0, 0.0)
        err = float(cupy.abs(dd.astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
        runs.append((off, dd, err, []))
    round_robin([((lambda p: lambda: launch(spec, ka.data.ptr, kb.data.ptr, 0, p, 1.0, 0.0))(dd.data.ptr), times)
                 for _, dd, _, times in runs], rounds, batches=1)
    print(f"41 f16 core {spec.tile.bm}x{spec.tile.bn} persistent={spec.tile.persistent}, buffer at "
          f"{buf.data.ptr:#x}")
    for off, dd, err, times in runs:
        ms = statistics.median(times)
        print(f"41 f16 D at +{off:5d} KB (address {dd.data.ptr % (1 << 24):#08x} mod 16 MB) {ms:.4f} ms "
              f"(p10 {sorted(times)[len(times) // 10]:.4f}, p90 {sorted(times)[9 * len(times) // 10]:.4f}) "
              f"{d.nbytes / ms / 1e6:.0f} GB/s of D err {err:.1e}{'  WRONG' if not err < 1e-2 else ''}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
