#!/bin/bash
# v18 first headline, on commit 69accca (KROW and the int k-loop, reverted after it; files in headline_try/) (after the cuTENSOR parts are in /tmp/ct, see ../shared/tools/cutensor-parts.sh): the new code's
# GPU tests (f32 one-wave narrow tile, and the simt loaders / k-loop changes through the simt paths), then f16,
# f16->f32 and f32, order F, all 48, cuTENSOR 2.8 and torch in the same run, then f16 none vs leaky_relu
# (peers off), then the f32 compute-bound cores of v17's code (_old/, git archive of 1bdc198) against this
# code's, alternately. Files under $OUT/${1:-headline}.
export PYTHONUNBUFFERED=1
O=$OUT/${1:-headline}; mkdir -p $O
cp .ct/p03 /tmp/ct/ && source .ct/setup.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $O/gpu.txt
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_narrow_wave.py tests/test_gpu_stream_k.py \
  tests/test_gpu_persistent.py tests/test_gpu_resident.py tests/test_gpu_semiring.py 2>&1 | tail -4 > $O/tests.txt
cat $O/tests.txt
timeout 330 python3 -m tccg --dtype f16,f16f32,f32 --order F --no-plots --out $O 2>&1 | grep -v "tccg gpu" > $O/log.txt
tail -40 $O/log.txt
timeout 100 python3 -m tccg --dtype f16 --ops none,leaky_relu --order F --no-peers --no-plots --out $O/ops 2>&1 \
  | grep -v "tccg gpu" > $O/ops_log.txt
grep "geomean\|verified" $O/ops_log.txt
for r in 1 2; do
  for v in old new; do
    d=.; [ $v = old ] && d=_old
    (cd $d && timeout 40 python3 -m tccg.tile_probe --cases 12,20,21,28 --dtype f32 --rounds 2 --paths none 2>&1 \
      | grep "^[ 0-9][0-9] \*" | sed "s/^/$v /") >> $O/old_new_f32.txt
  done
done
cat $O/old_new_f32.txt
