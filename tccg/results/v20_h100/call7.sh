#!/bin/bash
# v20 call 7 (H100): after the review mends (finished<SCALE> in the chunked epilogue, the plan cache's _executor,
# make_schedule's one heuristic tile): the chunked / persistent / cluster / dmma / schedule GPU tests, then #2, #12,
# #13, #14, #20 end to end in f16 and f32 against torch (no cuTENSOR here).
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_persistent.py tests/test_gpu_cluster.py tests/test_gpu_dmma.py tests/test_schedule.py tests/test_gpu_tune.py 2>&1 | tail -3 | tee "$out/tests.txt"
timeout 200 python3 -m tccg --cases 2,12-14,20 --dtype f16,f32 --order F --no-plots --out "$out/e2e" 2>&1 | grep -E "^ +(2|12|13|14|20) |verified|slower" | tee "$out/e2e.txt"
