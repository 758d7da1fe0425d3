#!/bin/bash
# v17 headline on the final code (the long-narrow rule, #2): final_run.sh into $OUT/headline2.
exec bash "$(dirname "$0")/final_run.sh" headline2
