#!/bin/bash
# v22 call 3 (H100): the trimmed-column GPU tests after the fix of a trimmed column's store bound (min(N, n0 + bn - 16):
# call 2's one-column test wrote past N); #12 f16's six variants (variants_probe.py) again, now in turn one batch of 5
# launches each per round, 300 rounds, twice (call 2's fixed order of 20 batches each favoured the first variants);
# then #2 and #12 end to end against torch, twice.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > "$out/gpu.txt"
timeout 120 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py -k "trimmed or chunked" 2>&1 | tail -4 | tee "$out/tests.txt"
for i in 1 2; do timeout 150 python3 tccg/results/v22_h100/variants_probe.py 300 2>&1 | tee "$out/variants$i.txt"; done
for i in 1 2; do timeout 60 python3 -m tccg --cases 2,12 --dtype f16 --order F --no-plots --out "$out/e2e$i" 2>&1 | tail -8 | tee "$out/e2e$i.txt"; done
