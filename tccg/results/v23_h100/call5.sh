#!/bin/bash
# v23 call 5 (H100): which part of #12 f16's D stores costs (epi_probe.py): the shared reads without the global stores
# (noglobal), half the stores (halfd), against plain, no stores and torch.einsum; Nsight Compute forward then
# reversed, twice.
out=${1:-$OUT}; mkdir -p "$out"; export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
bash tccg/results/v23_h100/ncu_pair.sh "$out" plain,nostore,noglobal,halfd,torch
