#!/bin/bash
# v27 headline (H100), after the cuTENSOR parts are in /tmp/ct (../shared/tools/cutensor-parts.sh): v23's script unchanged
# (f16, f16->f32, f32, order F, all 48, cuTENSOR 2.8 and torch in the same run, --interleave, then f16 none vs
# leaky_relu with the peers off). Files under $OUT/${1:-headline}.
exec bash tccg/results/v23_h100/final_run.sh "$@"
