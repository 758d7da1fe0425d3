#!/bin/bash
# v29 call 6 (H100): Nsight Compute byte counts of #12 f16, gettpy's heuristic core kernel (half_atom) against the cuBLAS
# kernel torch.einsum runs (clocks not locked): DRAM reads and writes, L2 traffic, instructions, time
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
M="gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,smsp__inst_executed.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_requests_srcunit_tex.sum"
timeout 200 ncu --clock-control none --kernel-name regex:gett_ --launch-skip 2 --launch-count 1 --metrics $M \
  python3 -m tccg.profile_case 12 f16 --tile h > "$out/ncu_12_gettpy.txt" 2>&1
timeout 200 ncu --clock-control none --launch-skip 2 --launch-count 1 --metrics $M \
  python3 tccg/results/v11_h100/call8/torch_case.py 12 f16 > "$out/ncu_12_torch.txt" 2>&1
grep -E "^  [a-z_A-Z].*\(|gpu__|sm__|dram__|lts__|smsp__" "$out"/ncu_12_*.txt
