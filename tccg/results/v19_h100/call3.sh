#!/bin/bash
# v19 call 3 (H100): the f32 split cores of #14 and #13 on the f64 tensor cores (forced tiles and slices,
# tccg.split_probe: packs + core + sum, CUDA-graph replays, each schedule checked against float64 first).
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1
T="64x64x32/3@32x32:b3,64x64x16/4@32x32:b3,64x128x32/3@32x64:b2,128x64x32/3@64x32:b2"
timeout 250 python3 -m tccg.split_probe --cases 14 --dtype f32 --tiles "$T" --splits c/26,c/39,c/52,c/78,c/104 2>&1 | tee "$out/split_14.txt"
timeout 250 python3 -m tccg.split_probe --cases 13 --dtype f32 --tiles "$T" --splits c/37,c/74,d/26,d/52 2>&1 | tee "$out/split_13.txt"
