#!/bin/bash
# v27 call 10 (H100): #12 f16's stage round trip with the watcher's stamps (rec_probe.py field 6: when each stage's full
# barrier completed), on 4 and 3 stages, twice each. The warpgroup lines are left out of the file.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 250 python3 tccg/results/v27_h100/rec_probe.py plain s3 plain s3 2>&1 | grep -v warpgroup | tee "$out/rec.txt"
