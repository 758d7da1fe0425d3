#!/bin/bash
# Session 6, seventh device call: ccsd_t tiles of the #33 family; leaky_relu applied in the kernel (no
# op packs: OP_PACK_MIN_REREADS patched) against the op packs, on the cases where the op costs most.
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../.."
# (first call: the tile probe below; probe_ccsd33.txt. The second call ran the op rules only.)
# timeout 100 python3 -m tccg.tile_probe --dtype f16 --cases 33,36,39,40,43,46 \
#   --tiles 96x128x32/3@48x64p,128x128x32/3@64x32p 2>&1 | tee $OUT/probe_ccsd33.txt
for rule in packs kernel; do
timeout 150 python3 -c "
import sys, importlib; s = importlib.import_module('gettpy.plan.schedule')
if '$rule' == 'kernel': s.OP_PACK_MIN_REREADS = 10**9
from tccg.runner import main
sys.exit(main(['--dtype', 'f16', '--ops', 'leaky_relu', '--cases', '2,9,12,13,16,17,31,32,33,36', '--order', 'F', '--no-peers', '--no-plots', '--out', '$OUT/csv_$rule']))
" 2>&1 | grep -E "^ *[0-9]+ |geomean" | tee $OUT/ops_$rule.txt
done
