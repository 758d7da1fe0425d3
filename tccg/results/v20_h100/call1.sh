#!/bin/bash
# (The kernel feature it probes, TileConfig.cluster_n, is in commit f2ea27d and was reverted after this call:
#  slower on every case it was timed on, call1/.)
# v20 call 1 (H100): clusters along n (TileConfig.cluster_n: tiles n, n + 1 of one row sharing A's stage).
# GPU tests of the cluster / persistent tiles, then core-kernel tile probes (tccg.tile_probe, round-robin):
# #12 on the plan with A and B trading roles ('~': A mn-major on 256-row tiles, B k-major 160 rows whole,
# D along m, chunked epilogue in B's stage) against the heuristic; #20, #21, #28 with 128 x 240 in pairs of
# columns sharing A.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee "$out/smi.txt"
timeout 200 python3 -m pytest -q -x tests/test_gpu_cluster.py tests/test_gpu_persistent.py 2>&1 | tail -15 | tee "$out/tests.txt"
T12="~256x160x64/4@64x160wtp:g4:c2n:e,~256x160x64/4@64x160wtp:g8:c2n:e,~256x160x64/4@64x160wt:g8:c2n"
timeout 150 python3 -m tccg.tile_probe --cases 12 --dtype f16 --rounds 5 --tiles "$T12" 2>&1 | tee "$out/probe_12.txt"
timeout 100 python3 -m tccg.tile_probe --cases 12 --dtype f16f32 --rounds 3 --tiles "~256x160x64/4@64x160wtp:g4:c2n:e" 2>&1 | tee "$out/probe_12_f32out.txt"
T20="128x240x64/4@64x240wt:c2n,128x240x64/4@64x240wtp:g8:c2n:e"
timeout 150 python3 -m tccg.tile_probe --cases 20,21,28 --dtype f16 --rounds 3 --tiles "$T20" 2>&1 | tee "$out/probe_20.txt"
