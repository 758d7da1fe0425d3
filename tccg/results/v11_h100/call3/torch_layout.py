"""Session 8 probe: torch.einsum's result layout on TCCG #2, and its time with the copy into D's layout.

torch.einsum returns the GEMM's output as a permuted view (for #2: b fastest, then c, then a), not
column-major D; gettpy writes D column-major. Times torch.einsum alone and torch.einsum + copy into a
column-major D (tccg.timing.time_torch, graph replays, 2 input sets).
"""
import sys

import numpy as np
import torch

from tccg.suite import parse_cases
from tccg.timing import time_torch

for num in sys.argv[1].split(","):
    case = parse_cases(num)[0]
    subs = case.einsum_subscripts()
    sa, sb, sd = case.shapes()
    for dt in (torch.float16, torch.float32):
        rng = np.random.default_rng(0)
        sets = []
        for _ in range(2):
            a, b = (torch.from_numpy(rng.uniform(-1, 1, s[::-1]).astype(np.float32)).to("cuda", dt).permute(
                *reversed(range(len(s)))) for s in (sa, sb))  # column-major views of shape s
            d = torch.empty(sd[::-1], device="cuda", dtype=dt).permute(*reversed(range(len(sd))))
            sets.append((a, b, d))
        r = torch.einsum(subs, sets[0][0], sets[0][1])
        ref = torch.einsum(subs, sets[0][0].double(), sets[0][1].double())
        err = float((r.double() - ref).abs().max() / ref.abs().max())
        alone = [lambda a=a, b=b: torch.einsum(subs, a, b) for a, b, _ in sets]
        into = [lambda a=a, b=b, d=d: d.copy_(torch.einsum(subs, a, b)) for a, b, d in sets]
        t0, _, _ = time_torch(alone)
        t1, _, _ = time_torch(into)
        print(f"#{num} {str(dt)[6:]}: torch.einsum {t0 * 1e3:7.1f} us (result strides {tuple(r.stride())}, "
              f"D column-major would be {tuple(sets[0][2].stride())}); + copy into D {t1 * 1e3:7.1f} us; err {err:.1e}",
              flush=True)
