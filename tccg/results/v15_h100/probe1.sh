#!/bin/bash
# Session 12 (no device then), for the next session's first call: the L2 prefetch hint on cp.async copies
# (TileConfig.l2_prefetch) and A's panel resident in shared memory (TileConfig.resident_a), written and
# compile-checked without a GPU, never run (the timeouts add up to 540 s).
#   1. the GPU tests of both (18 + 7: mma / simt / warp-specialised, 16-, 8- and 4-byte copies, partial
#      tiles, stream-K);
#   2. every f16 case's heuristic core kernel against itself with .L2::128B / .L2::256B, round-robin
#      (TMA cores have no copies and are skipped; the probe's summary gives the geomean and the cases);
#   3. #2 f16 (1.09-1.13x behind torch): the hint on stream-K and 4-stage tiles, and the n order cut so
#      that a tile's rows of the big input are neighbours in memory (n = a:8 x c: 8 of a, then c);
#   4. A's panel resident in shared memory (TileConfig.resident_a), with and without the hint, on the f16
#      cases whose heuristic core takes one (#2, #5, #6, #8: M = 24 on one tile row).
# Predictions: #2's k-major rows are 624 bytes, 16 bytes off 128-byte alignment, read 128 bytes a k-tile;
# each read straddles two lines, so without the hint DRAM serves partial lines twice; 256 B should fetch
# each row's neighbourhood once. Cases whose stage rows are whole aligned lines should not move. The resident
# panel takes A's copies (a ninth of #2's) out of every stage: a few percent where the stages' copies or the
# L2 -> SM traffic limit, nothing where DRAM does.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 90 python3 -m pytest tests/test_gpu_prefetch.py tests/test_gpu_resident.py -m gpu -q -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/tests.txt
timeout 200 python3 -m tccg.tile_probe --cases all --dtype f16 --rounds 3 --tiles "H:l128,H:l256" 2>&1 | tee $OUT/probe_f16.txt
timeout 80 python3 -m tccg.tile_probe --cases 2 --dtype f16 --rounds 3 --tiles "H:l64,H:l128,H:l256,32x256x64/4@32x32p:l256,32x256x64/3@32x32:k132,32x256x64/3@32x32:k132:l256" 2>&1 | tee $OUT/probe_2.txt
for o in "n=a:8,c" "n=a:24,c"; do
  timeout 45 python3 -m tccg.tile_probe --cases 2 --dtype f16 --rounds 3 --order "$o" --tiles "H:l256" 2>&1 | sed "s/^/$o /" | tee -a $OUT/probe_2.txt
done
timeout 80 python3 -m tccg.tile_probe --cases 2,5,6,8 --dtype f16 --rounds 3 --tiles "H:r,P:r,H:l256:r,P:l256:r" 2>&1 | tee $OUT/probe_res.txt
echo "== summary"; cat $OUT/tests.txt; grep -A3 "^== against" $OUT/probe_f16.txt; grep " ms \|against\|geomean" $OUT/probe_2.txt; grep -A5 "^== against" $OUT/probe_res.txt
