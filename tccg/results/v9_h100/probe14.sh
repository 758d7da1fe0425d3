#!/bin/bash
# Session 6, fourteenth device call (for the next session): DRAM bytes of #1-#6 (f16) in a warm state,
# L2 not flushed (--cache-control none), the 6th launch of each.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
for c in 1 2 3 4 5 6; do
timeout 80 ncu --cache-control none --clock-control none --kernel-name regex:gett_ --launch-skip 5 --launch-count 1 \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum \
  python3 -m tccg.profile_case $c f16 --reps 8 > $OUT/ncu_warm_$c.txt 2>&1
echo "#$c"; grep -E "gpu__time|dram__bytes|lts__t_sectors" $OUT/ncu_warm_$c.txt
done
