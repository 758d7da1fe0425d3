#!/bin/bash
# Session 7, call 4: register-bank experiment on the f32 simt core. Nsight Compute showed #20's
# stream-K core stalled 0.70 cycles per issue on dispatch (ncu_20_f32.txt); ptxas' allocation under the
# 128-register cap puts 70% of the FFMAs' two non-reused sources in the same (even/odd) register.
# GETT_SIMT_ORDER=1 (j outer, i inner) and 128-thread CTAs with 8x8 per thread, 3 per SM (168 registers)
# give 19-29% in the static count. Timed here, with the stream-K tests re-run.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
timeout 200 python3 -m pytest -q tests/test_gpu_stream_k.py 2>&1 | tail -3 | tee $OUT/gpu_tests.txt
for o in 0 1; do
  echo "GETT_SIMT_ORDER=$o" | tee -a $OUT/probe_order.txt
  GETT_SIMT_ORDER=$o python3 -m tccg.tile_probe --cases 20,21,12 --dtype f32 --tiles \
    "128x64x16/3@8x8s:b3:k396,64x128x16/3@8x8s:b3:k396,128x64x16/4@8x8s:b3:k396,128x64x32/3@8x8s:b3:k396,128x128x16/3@8x8s:b1:k132" \
    2>&1 | tee -a $OUT/probe_order.txt
done
