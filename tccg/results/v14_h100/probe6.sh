#!/bin/bash
# Session 11, call 6: after "no box for a column atom wholly past M" and prefetch.tensormap. #2 on TMA tiles
# (planner's order, and probe5's workspace order); #12 / #20's heuristic TMA tiles against the previous
# commit's kernel (a copy of the tree), alternately.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$PWD
rm -rf /tmp/old && cp -r . /tmp/old && (cd /tmp/old && git checkout -q HEAD~1 -- gettpy/kernels/gett.cuh)
timeout 100 python3 -m tccg.tile_probe --cases 2 --dtype f16 --rounds 3 --tiles "128x104x64/6@64x104wt,128x104x64/6@64x104wtp,128x24x64/8@64x24wtp" 2>&1 | tee $OUT/probe.txt
timeout 100 python3 tccg/results/v14_h100/probe5.py "128x256x64/4@64x256wt,128x128x64/6@64x128wtp,128x64x64/8@64x64wtp" 2>&1 | tee -a $OUT/probe.txt
for i in 1 2; do
  timeout 100 python3 -m tccg.tile_probe --cases 12,20 --dtype f16 --rounds 2 --tiles "128x256x64/4@64x256wt" 2>&1 | sed "s/^/new$i /" | tee -a $OUT/probe.txt
  (cd /tmp/old && PYTHONPATH=$PWD timeout 100 python3 -m tccg.tile_probe --cases 12,20 --dtype f16 --rounds 2 --tiles "128x256x64/4@64x256wt" 2>&1 | sed "s/^/old$i /" | tee -a $OUT/probe.txt)
done
echo "== summary"; grep " ms \| us " $OUT/probe.txt
