#!/bin/bash
# Session 7, call 3: GPU tests (stream-K, stagings, f32 subset of test_gpu.py); Nsight Compute stall
# reasons of #20 f32 (stream-K core) and of cuBLAS's sgemm (torch, #12's GEMM, TF32 off).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 400 python3 -m pytest -q tests/test_gpu_stream_k.py tests/test_gpu_persistent.py tests/test_schedule.py \
  "tests/test_gpu.py" -k "f32 or stream_k or persistent or schedule" 2>&1 | tail -5 | tee $OUT/gpu_tests.txt
M=smsp__inst_executed_pipe_fma.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second
for r in barrier long_scoreboard short_scoreboard mio_throttle math_pipe_throttle wait not_selected selected dispatch_stall no_instruction lg_throttle branch_resolving drain misc; do
  M=$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio
done
timeout 120 ncu --clock-control none --kernel-name regex:gett_ --launch-skip 1 --launch-count 1 \
  --section LaunchStats --section Occupancy --metrics $M python3 -m tccg.profile_case 20 f32 > $OUT/ncu_20_f32.txt 2>&1
cat > /tmp/cublas.py <<'PY'
import torch
torch.backends.cuda.matmul.allow_tf32 = False
a = torch.rand(5136, 5136, device="cuda", dtype=torch.float32)
b = torch.rand(5136, 5120, device="cuda", dtype=torch.float32)
for _ in range(3):
    c = a @ b
torch.cuda.synchronize()
ref = a.double() @ b.double()
print("max rel err", float((c.double() - ref).abs().max() / ref.abs().max()))
PY
timeout 120 ncu --clock-control none --kernel-name regex:"gemm|sgemm|ffma|cutlass" --launch-skip 1 --launch-count 1 \
  --section LaunchStats --section Occupancy --metrics $M python3 /tmp/cublas.py > $OUT/ncu_cublas_f32.txt 2>&1
for f in $OUT/ncu_20_f32.txt $OUT/ncu_cublas_f32.txt; do
  echo "== $f"; grep -E "\(.*\)x\(|Registers Per|Dynamic Shared|Achieved Occ|Waves|smsp__|sm__" $f | sed 's/smsp__average_warps_issue_stalled_//' | head -30
done
