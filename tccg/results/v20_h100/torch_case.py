"""Run torch.einsum on one TCCG case (column-major inputs) a few times, for Nsight Compute."""
import sys

import numpy as np
import torch

from tccg.suite import parse_cases

case = parse_cases(sys.argv[1])[0]
dt = {"f16": torch.float16, "f32": torch.float32}[sys.argv[2]]
sa, sb, _ = case.shapes()
rng = np.random.default_rng(0)
a, b = (torch.from_numpy(rng.uniform(-1, 1, s[::-1]).astype(np.float32)).to("cuda", dt).permute(
    *reversed(range(len(s)))) for s in (sa, sb))
for _ in range(4):
    r = torch.einsum(case.einsum_subscripts(), a, b)
torch.cuda.synchronize()
print(case.num, r.shape, r.stride())
