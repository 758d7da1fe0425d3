#!/bin/bash
# v19 headline on the final code (after the cuTENSOR parts are in /tmp/ct, see ../shared/tools/cutensor-parts.sh):
# the f64 tensor-core path's GPU tests, then f16, f16->f32 and f32, order F, all 48, cuTENSOR 2.8 and torch in
# the same run, then f16 none vs leaky_relu (peers off), then #20's f32 core (the f64 tensor cores) with the SM clock and power sampled
# every 100 ms (nvidia-smi). Files under $OUT/${1:-headline}.
export PYTHONUNBUFFERED=1
O=$OUT/${1:-headline}; mkdir -p $O
cp .ct/p03 /tmp/ct/ 2>/dev/null; source .ct/setup.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $O/gpu.txt
timeout 60 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_dmma.py 2>&1 | tail -2 > $O/tests.txt
cat $O/tests.txt
timeout 330 python3 -m tccg --dtype f16,f16f32,f32 --order F --no-plots --out $O 2>&1 | grep -v "tccg gpu" > $O/log.txt
tail -40 $O/log.txt
timeout 100 python3 -m tccg --dtype f16 --ops none,leaky_relu --order F --no-peers --no-plots --out $O/ops 2>&1 \
  | grep -v "tccg gpu" > $O/ops_log.txt
grep "geomean\|verified" $O/ops_log.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv \
  -lms 100 > $O/clocks_20.csv &
S=$!
timeout 60 python3 -m tccg.tile_probe --cases 20 --dtype f32 --rounds 3 --paths none 2>&1 | grep "^20" > $O/probe_20.txt
kill $S
cat $O/probe_20.txt
python3 - "$O/clocks_20.csv" <<'PY'
import csv, statistics, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r and r[0][0].isdigit()]
mhz = [float(r[1].split()[0]) for r in rows]
busy = [r for r, m in zip(rows, mhz) if m > 1000]
print(f"{len(rows)} samples, {len(busy)} above 1000 MHz: SM clock median {statistics.median(float(r[1].split()[0]) for r in busy):.0f} MHz, "
      f"power median {statistics.median(float(r[2].split()[0]) for r in busy):.0f} W, throttle reasons {sorted(set(r[4].strip() for r in busy))}")
PY
