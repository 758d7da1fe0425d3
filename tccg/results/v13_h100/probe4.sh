#!/bin/bash
# Session 10, call 4: #12 f16 with A and B trading roles (A read mn-major, B k-major, D along m) against
# the planner's orientation (B mn-major), same tiles, same call: is the transposed operand the cost?
# Then the direct-store persistent tests (the failure of call 3 was the test's smem threshold).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
T="128x256x64/4@64x256wt:c2,128x256x64/4@64x256wt,128x224x64/4@64x224wt:c2,128x240x64/4@64x240wt:c2,256x160x64/4@64x160wt:c2,256x128x64/4@64x128wt:c2"
timeout 100 python3 -m tccg.tile_probe --cases 12 --dtype f16 --tiles "$T" 2>&1 | tee $OUT/probe_12.txt
timeout 100 python3 -m tccg.tile_probe --cases 12 --dtype f16 --swap --tiles "$T" 2>&1 | tee $OUT/probe_12_swap.txt
timeout 100 python3 -m pytest -q tests/test_gpu_persistent.py 2>&1 | tail -3 | tee $OUT/tests.txt
echo "== summary"; for f in $OUT/probe_12.txt $OUT/probe_12_swap.txt; do echo $f; awk '/ ms /{print $1,$2,$3,$5,$6,$9,$10,$11,$NF}' $f; done; tail -1 $OUT/tests.txt
