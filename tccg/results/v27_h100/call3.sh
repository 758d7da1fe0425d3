#!/bin/bash
# v27 calls 3 and 5 (H100): #12 f16's stage round trip recorded (rec_probe.py). Call 3 ran the file's first version,
# which took stage counts (`rec_probe.py 4 3`, now `plain s3`) and had no epilogue stamps; call 5 the epilogue stamps.
out=${1:-$OUT}; mkdir -p "$out"/call3 "$out"/call5; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
timeout 300 python3 tccg/results/v27_h100/rec_probe.py plain s3 2>&1 | tee "$out/call3/rec.txt"
timeout 200 python3 tccg/results/v27_h100/rec_probe.py plain plain 2>&1 | tee "$out/call5/rec.txt"
