#!/bin/bash
# Session 10, call 8: the computing warpgroups release each stage as soon as its own wgmmas are done
# (wait_group 0, drain.patch) instead of after issuing the next k-tile (wait_group 1): one stage less held,
# one more in flight for the loads. A copy of the tree with the patch, timed alternately with the
# unpatched tree (A B A B), #12 and #20 f16 heuristic tiles.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
rm -rf /tmp/exp && cp -r . /tmp/exp && (cd /tmp/exp && git apply tccg/results/v13_h100/drain.patch && git diff --stat)
P="python3 -m tccg.tile_probe --cases 12,20 --dtype f16 --rounds 2 --tiles 256x160x64/4@64x160wt:c2"
for i in 1 2; do
  timeout 60 $P 2>&1 | sed "s/^/base$i /" | tee -a $OUT/probe.txt
  (cd /tmp/exp && timeout 60 $P 2>&1 | sed "s/^/drain$i /" | tee -a $OUT/probe.txt)
done
echo "== summary"; awk '/ ms /{print $1,$2,$3,$4,$10,$NF}' $OUT/probe.txt
