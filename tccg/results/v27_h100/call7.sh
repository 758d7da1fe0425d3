#!/bin/bash
# v27 calls 7-9 (H100): #12 f16's stage round trip recorded (rec_probe.py) on k-loop variants. Call 7: without B's third
# column atom (noatom2) and with half the wgmmas (halfmma); call 8: v23's one-group orders (inter1, mfirst1) and the tile
# without clusters (co256x160_4c1); call 9 (PYTHONPATH on commit 14ee108's gettpy and tccg modules, carried as _old14/:
# `git archive 14ee108 gettpy tccg/*.py`): B in five 32-column atoms under the 64-byte swizzle (pp:plain there) against
# three 64-column atoms (pp:sw128). The warpgroup lines are left out of the files.
out=${1:-$OUT}; mkdir -p "$out"/call7 "$out"/call8 "$out"/call9; export PYTHONUNBUFFERED=1
P=tccg/results/v27_h100/rec_probe.py
PYTHONPATH=$PWD timeout 200 python3 $P plain noatom2 halfmma 2>&1 | grep -v warpgroup | tee "$out/call7/rec.txt"
PYTHONPATH=$PWD timeout 250 python3 $P plain inter1 mfirst1 co256x160_4c1 2>&1 | grep -v warpgroup | tee "$out/call8/rec.txt"
PYTHONPATH=$PWD/_old14 timeout 250 python3 $P pp:plain pp:sw128 pp:plain 2>&1 | grep -v warpgroup | tee "$out/call9/rec.txt"
