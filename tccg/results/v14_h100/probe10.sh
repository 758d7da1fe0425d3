#!/bin/bash
# Session 11, call 10: #12 / #20's TMA tiles: raster groups (g2, g4, g16 against the heuristic's g8), and L2
# promotion of the boxes 128 B (l2_128.patch) or none (l2none.patch) against 256 B, copies of the tree
# timed alternately with this one.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
for p in l2_128 l2none; do rm -rf /tmp/$p && cp -r . /tmp/$p && (cd /tmp/$p && git apply tccg/results/v14_h100/$p.patch); done
timeout 120 python3 -m tccg.tile_probe --cases 12 --dtype f16 --rounds 3 --tiles "256x160x64/4@64x160wt:g2:c2,256x160x64/4@64x160wt:g4:c2,256x160x64/4@64x160wt:g16:c2" 2>&1 | tee $OUT/probe.txt
for i in 1 2; do
  timeout 60 python3 -m tccg.tile_probe --cases 12,20 --dtype f16 --rounds 2 --tiles "P" 2>&1 | grep "\*" | sed "s/^/l2_256_$i /" | tee -a $OUT/probe.txt
  for p in l2_128 l2none; do
    (cd /tmp/$p && timeout 60 python3 -m tccg.tile_probe --cases 12,20 --dtype f16 --rounds 2 --tiles "P" 2>&1 | grep "\*" | sed "s/^/${p}_$i /" | tee -a $OUT/probe.txt)
  done
done
echo "== summary"; grep " ms " $OUT/probe.txt
