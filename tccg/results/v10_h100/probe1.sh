#!/bin/bash
# Session 7, call 1: f32 compute-bound cases. (1) end to end with k-major inputs packed m/n-first,
# (2) simt tile variants on #20 / #21 / #12, (3) Nsight Compute of our #20 kernel and of cuBLAS's sgemm
# (torch, #12: ac,cb->ab, TF32 off) for issue rate, stalls and cuBLAS's launch shape.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv | tee $OUT/gpu.txt
python3 -m tccg --cases 12,20-30 --dtype f32 --order F --no-peers --no-plots --out $OUT/e2e 2>&1 | tail -16 | tee $OUT/e2e.txt
python3 -m tccg.tile_probe --cases 20,21,12 --dtype f32 --tiles "128x128x16/4@8x8s:b2,128x128x32/3@8x8s,128x128x32/2@8x8s:b2,128x128x16/3@16x8s,128x128x16/3@8x16s,256x128x16/3@16x8s,128x256x16/3@8x16s,256x128x16/2@16x8s,128x128x8/4@8x8s:b2" 2>&1 | tee $OUT/probe_tiles.txt
timeout 150 ncu --clock-control none --kernel-name regex:gett_ --launch-skip 1 --launch-count 1 \
  --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy \
  --section InstructionStats --section LaunchStats --metrics smsp__inst_executed_pipe_fma.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active \
  python3 -m tccg.profile_case 20 f32 > $OUT/ncu_20_f32.txt 2>&1
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
timeout 150 ncu --clock-control none --launch-skip 1 --launch-count 1 \
  --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy \
  --section InstructionStats --section LaunchStats --metrics smsp__inst_executed_pipe_fma.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active \
  python3 /tmp/cublas.py > $OUT/ncu_cublas_12_f32.txt 2>&1
for f in $OUT/ncu_20_f32.txt $OUT/ncu_cublas_12_f32.txt; do
  echo "== $f"; grep -E "\(.*\)x\(|SM Frequency|Duration|Compute \(SM\)|Issue Slots|Registers Per|Shared Memory Config|Dynamic Shared|Block Size|Grid Size|Achieved Occ|pipe_fma|inst_executed.sum|issue_active|Stall|Executed Ipc A" $f | head -30
done
