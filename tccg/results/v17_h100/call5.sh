#!/bin/bash
# v17 call 5 (H100): #2 f16 on warp-specialised wgmma tiles (A and B trading roles: the big input on m, k-major,
# fed by 128 cp.async loader threads with the L2 prefetch; the small input 24 -> 32 wide), deep stage rings like
# cuBLAS's nvjet kernel (call4), against the heuristic's persistent narrow mma.sync tile timed before and after.
set -u
export PYTHONUNBUFFERED=1
O=$OUT/call5; mkdir -p $O
timeout 60 python3 -m tccg.tile_probe --cases 2 --dtype f16 --rounds 5 --tiles "H" 2>&1 | grep -v "^compiling" | tee $O/probe_h1.txt
timeout 150 python3 -m tccg.tile_probe --cases 2 --dtype f16 --swap --rounds 5 --tiles \
  "128x32x64/8@64x32wxp:l128,128x32x64/6@64x32wxp:l128,256x32x64/5@64x32wxp:l128,128x32x64/8@64x32wx:l128,128x32x64/8@64x32wxp" \
  2>&1 | grep -v "^compiling" | tee $O/probe_ws.txt
timeout 60 python3 -m tccg.tile_probe --cases 2 --dtype f16 --rounds 5 --tiles "H" 2>&1 | grep -v "^compiling" | tee $O/probe_h2.txt
