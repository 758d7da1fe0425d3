#!/bin/bash
# Session 11, call 13: #12 f16's new heuristic tile (persistent 256 x 160 with the chunked epilogue) against
# v13's one-tile CTAs and against raster groups of 4, round-robin; #12 end to end against torch twice; then
# the persistent, cluster and wgmma GPU tests (chunked epilogues, split tensor maps).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 150 python3 -m tccg.tile_probe --cases 12 --dtype f16 --rounds 4 --tiles "256x160x64/4@64x160wt:c2,256x160x64/4@64x160wtp:g4:c2:e" 2>&1 | tee $OUT/probe.txt
for i in 1 2; do timeout 100 python3 -m tccg --cases 12 --dtype f16,f16f32 --order F --no-plots --out /tmp/e2e 2>&1 | grep -E "^ *12 |slower|layout" | tee -a $OUT/e2e.txt; done
timeout 330 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py tests/test_gpu_cluster.py tests/test_gpu_wgmma.py 2>&1 | tail -4 | tee $OUT/tests.txt
echo "== summary"; grep " ms \|Error" $OUT/probe.txt; cat $OUT/e2e.txt; tail -1 $OUT/tests.txt
