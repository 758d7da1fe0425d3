#!/bin/bash
# v23 call 3 (H100): the TMA stores with the waits for the TMA unit's reads deferred into the next tile's first k-tile
# (gett.cuh's TMA_HOLD 1: the last round's; 2: both rounds staged in the last two stages at once), against TMA_HOLD 0,
# no stores and torch.einsum (epi_probe.py): Nsight Compute forward then reversed, twice; then timed in turn.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py -k "tma_store" 2>&1 | tail -15 | tee "$out/tests.txt"
bash tccg/results/v23_h100/ncu_pair.sh "$out" plain,nostore,tmast,tmast1,tmast2,torch
timeout 100 python3 tccg/results/v23_h100/epi_probe.py 300 plain,tmast1,tmast2,torch 2>&1 | tee "$out/timed.txt"
