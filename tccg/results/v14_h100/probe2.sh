#!/bin/bash
# Session 11, call 2: why #2's TMA tiles ran at half speed (call 1): the same tile with cp.async loaders
# (x, xp), with TMA without L2 promotion (l2none.patch, in a copy of the tree), and Nsight Compute's
# speed-of-light / memory / warp-state sections of the heuristic's kernel against the TMA one.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$PWD
rm -rf /tmp/exp && cp -r . /tmp/exp && (cd /tmp/exp && git apply tccg/results/v14_h100/l2none.patch)
timeout 100 python3 -m tccg.tile_probe --cases 2 --dtype f16 --rounds 3 --tiles "128x104x64/6@64x104wt,128x104x64/6@64x104wx,128x104x64/6@64x104wxp,128x104x64/4@64x104wx" 2>&1 | tee $OUT/probe.txt
(cd /tmp/exp && timeout 60 python3 -m tccg.tile_probe --cases 2 --dtype f16 --rounds 3 --tiles "128x104x64/6@64x104wt" 2>&1 | sed "s/^/l2none /" | tee -a $OUT/probe.txt)
for t in h "128x104x64/6@64x104wt"; do
  timeout 150 ncu --clock-control none --launch-skip 2 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section WarpStateStats --section LaunchStats --section Occupancy --kernel-name regex:gett_ python3 -m tccg.profile_case 2 f16 --tile "$t" > $OUT/ncu_$(echo $t | tr '/@' '__').txt 2>&1
done
echo "== summary"; grep " ms " $OUT/probe.txt
for f in $OUT/ncu_*; do echo "== $f"; grep -E "Duration|DRAM Throughput|Memory Throughput|L2 Hit|L1/TEX Hit|Mem Busy|Max Bandwidth|Registers Per|Achieved Occupancy|Stall|Warp Cycles Per Issued" $f | head -24; done
