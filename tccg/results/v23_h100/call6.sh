#!/bin/bash
# v23 call 6 (H100): #12 f16's D stores into 8 KB per CTA that stay in the L2 (hotd) and into 80 KB per CTA (tinyd),
# against plain, no stores and torch.einsum (epi_probe.py); Nsight Compute forward then reversed, twice.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
bash tccg/results/v23_h100/ncu_pair.sh "$out" plain,nostore,hotd,tinyd,torch
