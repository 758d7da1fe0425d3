#!/bin/bash
# Session 10, call 11: the TMA loader issues B's boxes (multicast into both CTAs of a cluster) before A's
# (bfirst.patch), timed alternately against the unpatched tree (A B A B), #12 and #20 f16.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
rm -rf /tmp/exp && cp -r . /tmp/exp && (cd /tmp/exp && git apply tccg/results/v13_h100/bfirst.patch)
P="python3 -m tccg.tile_probe --cases 12,20 --dtype f16 --rounds 2 --tiles 128x224x64/4@64x224wt:c2"
for i in 1 2; do
  timeout 60 $P 2>&1 | sed "s/^/base$i /" | tee -a $OUT/probe.txt
  (cd /tmp/exp && timeout 60 $P 2>&1 | sed "s/^/bfirst$i /" | tee -a $OUT/probe.txt)
done
echo "== summary"; awk '/ ms /{print $1,$2,$3,$4,$(NF-5),$NF}' $OUT/probe.txt
