#!/bin/bash
# v25 call 1 (H100): ping-pong warpgroups (TileConfig.pingpong). Their GPU tests and the persistent / cluster ones;
# #12 f16 on ping-pong tiles against the heuristic's cooperative tile and torch.einsum, timed in turn (pp_probe.py)
# and under Nsight Compute twice (cycles, clocks not locked).
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py tests/test_gpu_cluster.py 2>&1 \
  | tail -6 | tee "$out/tests.txt"
V=plain,pp128x160_5,pp128x160_5g8,pp128x128_6,pp64x256_5,torch
timeout 150 python3 tccg/results/v25_h100/pp_probe.py 200 $V 2>&1 | tee "$out/timed.txt"
PROBE=tccg/results/v25_h100/pp_probe.py bash tccg/results/v23_h100/ncu_pair.sh "$out" plain,pp128x160_5,torch \
  2>&1 | tee "$out/ncu.txt"
timeout 100 python3 tccg/results/v25_h100/pp_probe.py 200 $V 2>&1 | tee "$out/timed2.txt"
