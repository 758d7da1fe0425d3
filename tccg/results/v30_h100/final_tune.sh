#!/bin/bash
# v30: heuristic vs tuned plan over the 48 (peers off) on the final code, f16 then f32, by v20's script (unchanged):
# files under $OUT/tune. (#2 f16's tuner variants are now the row-stream tile's: a stage fewer, K in 2 parts, the ws tile.)
exec bash tccg/results/v20_h100/final_tune.sh "$@"
