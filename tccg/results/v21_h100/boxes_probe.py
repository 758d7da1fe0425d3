"""v21 probe (H100): a compute-bound contraction whose TMA map needs boxes of fewer rows than the tile
(C[a, c, b] = A[d, c, a] B[d, b], column-major, a = 72: the big input's n = (a, c) is two stride terms, and
tiles of 160 or 240 rows straddle a's slabs: boxes of 8 rows), the heuristic (cp.async, which leaves such maps
alone) against TMA tiles, so that `plan/tiles.py` `_whole_boxes` rests on a measurement.

    PYTHONPATH=. python3 tccg/results/v21_h100/boxes_probe.py [rounds]
"""
import os
import sys

import cupy
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rows_probe import probe  # noqa: E402

A_, B_, C_, D_ = 72, 5120, 72, 5184
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
rng = np.random.default_rng(3)
a = cupy.asarray(rng.uniform(-1, 1, (D_, C_, A_)).astype(np.float16), order="F")
b = cupy.asarray(rng.uniform(-1, 1, (D_, B_)).astype(np.float16), order="F")
d = cupy.empty((A_, C_, B_), dtype=np.float16, order="F")
probe("f16", "dca,db->acb", (a, b, d), ("f16", "f16", "f16"),
      ("256x160x64/4@64x160wtp:g4:c2:e", "128x240x64/4@64x240wt",
       "128x256x64/4@64x256wt:c2"), rounds, (a.size + b.size + d.size) * 2)
