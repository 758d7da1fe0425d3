#!/bin/bash
# Session 10, call 3: persistent TMA tiles storing D straight from the accumulators (no staging tile, so 4
# stages fit: 256 x 160 and 128 x 256), in clusters of two, on #12 / #20 (f16, #12 also f16 -> f32), against
# the non-persistent tiles in the same call; torch's #12 / #20; then the persistent and cluster GPU tests.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
T12="256x160x64/4@64x160wt:c2,256x160x64/4@64x160wtp:c2,256x160x64/4@64x160wtp,128x256x64/4@64x256wtp:c2,128x224x64/4@64x224wtp:c2,256x160x64/3@64x160wtp:c2"
timeout 120 python3 -m tccg.tile_probe --cases 12 --dtype f16 --tiles "$T12" 2>&1 | tee $OUT/probe_12.txt
timeout 120 python3 -m tccg.tile_probe --cases 20 --dtype f16 --tiles "128x208x64/4@64x208wt,128x240x64/4@64x240wt,128x208x64/4@64x208wtp,128x240x64/4@64x240wtp,128x256x64/4@64x256wtp,256x160x64/4@64x160wtp,256x192x64/3@64x192wtp" 2>&1 | tee $OUT/probe_20.txt
timeout 100 python3 -m tccg.tile_probe --cases 12 --dtype f16f32 --tiles "256x160x64/4@64x160wt:c2,256x160x64/4@64x160wtp:c2,128x256x64/4@64x256wtp:c2" 2>&1 | tee $OUT/probe_12_f16f32.txt
timeout 100 python3 -m tccg --cases 12,20 --dtype f16,f16f32 --no-plots --out $OUT/tccg 2>&1 | grep -v "tccg gpu" | tail -24 | tee $OUT/tccg.txt
timeout 200 python3 -m pytest -q -x tests/test_gpu_persistent.py tests/test_gpu_cluster.py 2>&1 | tail -5 | tee $OUT/tests.txt
echo "== summary"; grep -h " ms " $OUT/probe_*.txt | awk '{print $1,$2,$3,$5,$6,$9,$10,$11,$NF}'; grep -E "^ 1[2]|^ 20|slower" $OUT/tccg.txt; tail -1 $OUT/tests.txt
