# v30 call 2: #2 f16 on the whole-row stream prototype (rows_kernel.cu) in 8 shapes, against gettpy and torch
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv | tee $OUT/gpu.txt
PYTHONUNBUFFERED=1 PYTHONPATH=. python3 tccg/results/v30_h100/rows_probe.py 2>&1 | tee $OUT/rows_probe.txt
