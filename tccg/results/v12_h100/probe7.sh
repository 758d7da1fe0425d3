#!/bin/bash
# Session 9, call 7: persistent warp-specialised tiles (the loading warpgroup runs on into the CTA's next
# tile while the computing warpgroups store this one): GPU tests, then #12 / #20 f16 (TMA, 3 stages beside
# the epilogue tile) and #2 f16 (cp.async loaders, its B in place has no tensor map) in the tile probe.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py 2>&1 | tail -8 | tee $OUT/gpu_tests.txt
python3 -m tccg.tile_probe --cases 12,20 --dtype f16 --tiles "128x256x64/3@64x256wt,128x256x64/3@64x256wtp,128x256x64/3@64x256wtp:g16" 2>&1 | tee $OUT/probe_12_20.txt
python3 -m tccg.tile_probe --cases 2 --dtype f16 --tiles "128x128x64/5@64x128wxp,128x128x64/4@64x128wxp,128x256x64/3@64x256wxp,128x128x64/4@64x128wx" 2>&1 | tee $OUT/probe_2.txt
