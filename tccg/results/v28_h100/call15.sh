#!/bin/bash
# v28 call 15 (H100): the chunked epilogue along m (GPU tests against float64), then orient_probe.py --m12 --flip:
# #12 and M = 5120 on the flipped partition (52 KB stages, D along m) beside the heuristic and torch.matmul, timed
# round-robin and then sustained under the power cap (3 s each, forward then reversed)
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py -k "along_m or chunked" 2>&1 \
  | tail -6 | tee "$out/tests.txt"
timeout 350 python3 tccg/results/v28_h100/orient_probe.py --m12 --flip cluster=1 --sustain 3 2>&1 | tee "$out/orient.txt"
