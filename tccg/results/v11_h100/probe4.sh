#!/bin/bash
# Session 8 call 4: #14 f32 with its pack of A m-first (schedule._mn_first forced for the probe) on
# 64x64 split cores with and without stream-K; f16 narrow tiles made persistent; f32 #1-#8 end to end
# with the 32x128x32 narrow tile for K >= 256 (working tree).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$PWD
python3 -c "
import importlib, sys
S = importlib.import_module('gettpy.plan.schedule')
S._mn_first = lambda plan, tile: tile.tm > 0
from tccg.split_probe import main
main(['--dtype', 'f32', '--cases', '14', '--splits', 'c/26,c/52,c/78,c/104', '--tiles', '64x64x16/3@8x8s:b6,64x64x16/3@8x8s:b6:k792'])
" 2>&1 | tee $OUT/split14_mnfirst.txt
python3 -m tccg.tile_probe --dtype f16 --cases 2,5,6,7,8 --tiles P 2>&1 | tee $OUT/tiles_f16_P.txt
python3 -m tccg --cases 1-8 --dtype f32 --no-plots --out /tmp/o 2>&1 | grep -v "tccg gpu" | tee $OUT/tccg_f32_1-8.txt | grep -E "^ +[0-9] "
