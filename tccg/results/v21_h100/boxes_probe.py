"""v21 probe (H100): compute-bound contractions whose TMA maps need boxes of fewer rows than the tile (a
column-major input whose n or m is two stride terms, a's slab of 40-104 rows, straddled by the tiles), the
heuristic against a forced tile, so that `plan/tiles.py` `_tma_tile` rests on measurements.

    PYTHONPATH=. python3 tccg/results/v21_h100/boxes_probe.py [rounds] [tile] [dtypes]

Without `tile`: C[a, c, b] = A[d, c, a] B[d, b], a = 72 (call 9), the heuristic (then cp.async 256 x 128) against
TMA tiles. With `tile` (call 11): six shapes, the heuristic (TMA over straddled slabs where B's are) against that
tile. dtypes (call 12): input and output types, e.g. "f16,f32" (default "f16,f16").
"""
import os
import sys

import cupy
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rows_probe import probe  # noqa: E402

SHAPES = [  # (einsum, extents of a, b, c, d)
    ("dca,db->acb", (72, 5120, 72, 5184)),
    ("dca,db->acb", (40, 5120, 128, 5184)),
    ("dca,db->acb", (104, 5120, 48, 5184)),
    ("dca,db->acb", (96, 5120, 56, 5184)),
    ("dca,bd->bac", (72, 5120, 72, 5184)),
    ("dac,bd->cab", (72, 5120, 72, 5184)),
]


def run(subs, ext, tiles, rounds, din="f16", dout="f16"):
    from gettpy.dtypes import numpy_dtype

    rng = np.random.default_rng(3)
    e = dict(zip("abcd", ext, strict=True))
    ins, out = subs.split("->")
    a, b = (cupy.asarray(rng.uniform(-1, 1, tuple(e[m] for m in t)).astype(np.float32), order="F").astype(
        numpy_dtype(din), order="F") for t in ins.split(","))
    d = cupy.empty(tuple(e[m] for m in out), dtype=numpy_dtype(dout), order="F")
    probe(f"{din}->{dout} {subs} {ext}", subs, (a, b, d), (din, din, dout), tiles, rounds,
          (a.size + b.size) * 2 + d.nbytes)


rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
if len(sys.argv) > 2:
    din, dout = (sys.argv[3] if len(sys.argv) > 3 else "f16,f16").split(",")
    for subs, ext in SHAPES:
        run(subs, ext, (sys.argv[2],), rounds, din, dout)
else:
    run(*SHAPES[0], ("256x160x64/4@64x160wtp:g4:c2:e", "128x240x64/4@64x240wt", "128x256x64/4@64x256wt:c2"),
        rounds)
