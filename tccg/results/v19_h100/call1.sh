#!/bin/bash
# v19 call 1 (H100): f32 GEMM cores on the f64 tensor cores (compute f64, KernelSpec.tf32 = 2) against the
# f32 simt heuristic; cuBLAS SGEMM / DGEMM on 5184^3 for scale. Usage: bash call1.sh OUTDIR
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv | tee "$out/gpu.txt"
python3 - <<'PY' 2>&1 | tee "$out/cublas.txt"
import cupy, statistics
n = 5184
for dt in ("float32", "float64"):
    a = cupy.random.uniform(-1, 1, (n, n)).astype(dt); b = cupy.random.uniform(-1, 1, (n, n)).astype(dt)
    for _ in range(3): a @ b
    ts = []
    for _ in range(15):
        e0, e1 = cupy.cuda.Event(), cupy.cuda.Event(); e0.record(); c = a @ b; e1.record(); e1.synchronize()
        ts.append(cupy.cuda.get_elapsed_time(e0, e1))
    ms = statistics.median(ts)
    print(f"cuBLAS {dt} {n}^3: {ms:.3f} ms, {2 * n**3 / ms / 1e9:.1f} TFLOP/s")
PY
timeout 300 python3 -m tccg.tile_probe --cases 20,28,12 --dtype f32 --compute f64 --rounds 3 \
  --tiles "128x128x16/3@64x32,128x128x16/4@32x64,128x128x16/5@64x32,128x64x16/4@32x32" 2>&1 | tee "$out/dmma.txt"
timeout 200 python3 -m tccg.tile_probe --cases 20,28,12 --dtype f32 --rounds 3 --paths none 2>&1 | tee "$out/simt.txt"
grep -h "ms" "$out/dmma.txt" "$out/simt.txt" | tail -30
