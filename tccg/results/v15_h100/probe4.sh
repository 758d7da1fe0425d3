#!/bin/bash
# Session 12 (written after the device calls; never run): for the leaky_relu goal (+10.6% in ops2/).
#   1. the GPU tests of TileConfig.frag_op_b (6: the op on B applied to B's mma fragments, not to each stage;
#      an op that maps 0 to inf checks the zeroing past K);
#   2. the narrow f16 cores with leaky_relu on A, B and D, their heuristic tile against the same with the op on
#      B's fragments (H:f), round-robin.
# Prediction: the stage transform sits between a stage's wait and the CTA's barrier, once per k-tile, on
# 1-CTA-per-SM tiles of 2-3 stages (#6 / #8: 1.11-1.12x their no-op time, #2 1.19x); on fragments the op
# costs the same arithmetic off that path, so the ratio should fall toward the B-pack-free cases' ~1.05.
# Note: with an op, #1 and #2 pack their small input with the op applied, k-major, so their A panel is not
# resident (the kernel wants A m-contiguous); the pack's layout decides that, not the tile.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 60 python3 -m pytest tests/test_gpu_frag_ops.py -m gpu -q -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/tests.txt
timeout 80 python3 -m tccg.tile_probe --cases 2,5,6,8 --dtype f16 --op leaky_relu --rounds 3 --tiles "H:f" 2>&1 | tee $OUT/probe_frag.txt
echo "== summary"; cat $OUT/tests.txt; grep -A3 "^== against" $OUT/probe_frag.txt
