# v30 call 1: #2's input streamed by raw readers vs gettpy and torch, timed as python -m tccg times #2
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv | tee $OUT/gpu.txt
PYTHONUNBUFFERED=1 PYTHONPATH=. python3 tccg/results/v30_h100/stream_probe.py 2>&1 | tee $OUT/stream_probe.txt
