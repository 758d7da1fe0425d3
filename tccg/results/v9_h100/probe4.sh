#!/bin/bash
# Session 6, fourth device call: f32 narrow tiles exactly 24 rows; Nsight Compute of #3 and #15 (f16).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 90 python3 -m tccg.tile_probe --dtype f32 --cases 1,2,3,5,6 \
  --tiles 24x128x16/3@3x8s,24x256x16/3@3x8s,24x128x16/4@3x4s 2>&1 | tee $OUT/probe_f32_24.txt
for c in 3 15; do
timeout 150 ncu --clock-control none --kernel-name regex:gett_ --launch-skip 1 --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
  --section Occupancy --section WarpStateStats \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read.sum \
  python3 -m tccg.profile_case $c f16 > $OUT/ncu_$c.txt 2>&1
grep -E "Duration|DRAM Throughput|dram__bytes|lts__t_sectors|L2 Hit|Achieved Occ|Theoretical Occ|Registers Per|Block Limit" $OUT/ncu_$c.txt
done
