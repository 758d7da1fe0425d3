#!/bin/bash
# Session 10, call 9: the 64-byte swizzle. #12's heuristic tile (256 x 160 in clusters) now loads B's 160
# columns as 5 atoms of 32, not 3 of 64 (7% fewer bytes a stage); bk 32 tiles have 8-9 stages of half the
# k. Timed alternately against a copy of the tree without swizzle64.patch (A B A B); then the wgmma,
# cluster and persistent GPU tests.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
rm -rf /tmp/old && cp -r . /tmp/old && (cd /tmp/old && git apply -R tccg/results/v13_h100/swizzle64.patch && grep -c "ATOM" gettpy/kernels/gett.cuh)
for i in 1 2; do
  timeout 60 python3 -m tccg.tile_probe --cases 12 --dtype f16 --rounds 2 --tiles "256x160x32/8@64x160wt:c2,128x224x64/4@64x224wt:c2" 2>&1 | sed "s/^/new$i /" | tee -a $OUT/probe.txt
  (cd /tmp/old && timeout 60 python3 -m tccg.tile_probe --cases 12 --dtype f16 --rounds 2 --tiles "128x224x64/4@64x224wt:c2" 2>&1 | sed "s/^/old$i /" | tee -a $OUT/probe.txt)
done
timeout 60 python3 -m tccg.tile_probe --cases 20 --dtype f16 --rounds 2 --tiles "128x240x32/8@64x240wt,128x240x32/9@64x240wt" 2>&1 | sed "s/^/new /" | tee -a $OUT/probe.txt
timeout 330 python3 -m pytest -q -x tests/test_gpu_cluster.py tests/test_gpu_persistent.py tests/test_gpu_wgmma.py -k "cluster or warp_specialised or tma or persistent" 2>&1 | tail -4 | tee $OUT/tests.txt
echo "== summary"; awk '/ ms /{print $1,$2,$3,$4,$(NF-5),$NF}' $OUT/probe.txt; tail -1 $OUT/tests.txt
