#!/bin/bash
# v26 call 1b (H100), right after call 1 on the same machine (whose probe stopped at epi_probe's store-text assert, mended
# in bal_probe.py): #12 f16 on balanced tile columns against v25's grid, the turn alone, the balance alone and
# torch.einsum, timed in turn twice.
out=${1:-$OUT/call1b}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
V=plain,unbal,unbal5,bal1,torch  # (at 15a706d plain was the balanced kernel; on later code give bal,unbal,unbal5,bal1,torch)
timeout 150 python3 tccg/results/v26_h100/bal_probe.py 300 $V 2>&1 | tee "$out/timed.txt"
timeout 150 python3 tccg/results/v26_h100/bal_probe.py 300 $V 2>&1 | tee "$out/timed2.txt"
