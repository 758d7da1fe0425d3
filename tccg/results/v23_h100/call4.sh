#!/bin/bash
# v23 call 4 (H100): where #12 f16's D stores cost (epi_probe.py): plain, no stores, the same stores into an 80 KB
# block per CTA that stays in the L2 (tinyd), torch.einsum; Nsight Compute with the memory tables, forward then
# reversed, twice.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
bash tccg/results/v23_h100/ncu_pair.sh "$out" plain,nostore,tinyd,torch "--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables"
