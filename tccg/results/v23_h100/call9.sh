#!/bin/bash
# v23 call 9 (H100): do #12 f16's stores cost less when half the CTAs reach their tile boundaries half a tile later
# (epi_probe.py oddlate, with and without stores) than when all write at once; Nsight Compute forward then reversed, twice.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
bash tccg/results/v23_h100/ncu_pair.sh "$out" plain,nostore,oddlate,oddlate+nostore
