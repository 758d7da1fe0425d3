# v30 call 3: the row-stream tile in gettpy (gett.cuh Rows): its GPU tests and the forced ws tile's, then #2 end to end
# (f16, f16->f32) against torch.einsum with --interleave (no cuTENSOR in this call)
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv | tee $OUT/gpu.txt
PYTHONUNBUFFERED=1 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_rows.py tests/test_gpu_narrow_ws.py 2>&1 | tee $OUT/tests.txt | tail -30
PYTHONUNBUFFERED=1 python3 -m tccg --cases 2 --dtype f16,f16f32 --order F --no-plots --interleave --out $OUT/e2e 2>&1 | tee $OUT/e2e.txt | tail -25
