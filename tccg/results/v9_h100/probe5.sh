#!/bin/bash
# Session 6, fifth device call: tile rasterisation down the columns when every tile row fits one group
# (#15-#18), GPU tests of the tile order; one kernel timed alone after an L2 flush vs back to back.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 100 python3 -m tccg --dtype f16,f32 --cases 1-9,12-18 --order F --no-peers --no-plots --out $OUT/csv 2>&1 | grep -v "^ *vs \|GM1\|tccg gpu" | tee $OUT/raster.txt
timeout 200 python3 -m pytest tests/test_gpu.py -m gpu -q -x -k "gemm_shapes or batch or random_odd or interleaved or d_runs or tccg" 2>&1 | tail -3 | tee $OUT/gpu_tests_raster.log
timeout 120 python3 - <<'PY' 2>&1 | tee $OUT/alone_vs_steady.txt
import statistics, cupy, numpy as np
from tccg.runner import case_problem
from tccg.suite import parse_cases
from gettpy.plan.schedule import make_schedule
from gettpy.plan.tiles import kernel_spec
from gettpy.backends.gpu import launch
from gettpy.backends.staged import _pack
flush = cupy.empty(256 << 20, dtype=cupy.uint8)
for num, dt in [(3, "f16"), (1, "f16"), (6, "f16"), (5, "f16"), (33, "f16"), (32, "f16"), (3, "f32")]:
    case = parse_cases(str(num))[0]
    sched = make_schedule(case_problem(case, dt, dt)); plan = sched.core
    npdt = np.float16 if dt == "f16" else np.float32
    rng = np.random.default_rng(num)
    sa, sb, sd = case.shapes()
    a = cupy.asarray(np.asfortranarray(rng.uniform(-1, 1, sa).astype(npdt)), order="F")
    b = cupy.asarray(np.asfortranarray(rng.uniform(-1, 1, sb).astype(npdt)), order="F")
    d = cupy.empty(sd, dtype=npdt, order="F")
    ext = dict(sched.problem.extents)
    pa = _pack(cupy, a, sched.problem.a, sched.pack_a, ext) if sched.pack_a is not None else a
    pb = _pack(cupy, b, sched.problem.b, sched.pack_b, ext) if sched.pack_b is not None else b
    ka, kb = (pb, pa) if plan.part.swapped else (pa, pb)
    spec = kernel_spec(plan, False)
    run = lambda: launch(spec, ka.data.ptr, kb.data.ptr, 0, d.data.ptr, 1.0, 0.0)
    run(); cupy.cuda.Device().synchronize()
    e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
    steady, alone, alone_dirty = [], [], []
    for _ in range(20):
        e0.record(); [run() for _ in range(10)]; e1.record(); e1.synchronize()
        steady.append(cupy.cuda.get_elapsed_time(e0, e1) / 10)
    for rep in range(20):
        flush.fill(rep % 250); cupy.cuda.Device().synchronize()   # (L2 full of dirty lines of another buffer)
        e0.record(); run(); e1.record(); e1.synchronize()
        alone_dirty.append(cupy.cuda.get_elapsed_time(e0, e1))
        flush[:1024].fill(0); cupy.cuda.Device().synchronize()
        x = float(flush[::4096].sum())  # (read the buffer: L2 holds clean lines)
        e0.record(); run(); e1.record(); e1.synchronize()
        alone.append(cupy.cuda.get_elapsed_time(e0, e1))
    t = spec.tile
    print(f"#{num} {dt} {t.bm}x{t.bn}x{t.bk}/{t.stages}: back-to-back {1000*statistics.median(steady):7.1f} us, "
          f"alone after dirty L2 {1000*statistics.median(alone_dirty):7.1f} us, alone {1000*statistics.median(alone):7.1f} us")
PY
