#!/bin/bash
# v25: heuristic vs tuned plan over the 48 (peers off) on the final code, f16 then f32, by v20's script (unchanged):
# files under $OUT/tune.
exec bash tccg/results/v20_h100/final_tune.sh "$@"
