"""#2 (abc-dca-bd, f16) for Nsight Compute: gettpy into D's column-major layout ('d'), gettpy into torch.einsum's
own result layout ('like'), or torch.einsum itself ('torch'); each result checked against float64 once, then
run three more times. Usage: python3 ncu_2.py d|like|torch"""
import sys

import cupy as cp
import numpy as np
import torch

sys.path.insert(0, ".")
from tccg import peers  # noqa: E402

mode = sys.argv[1]
rng = np.random.default_rng(2)
a = cp.asarray(np.asfortranarray(rng.uniform(-1, 1, (312, 296, 312)).astype(np.float16)), order="F")  # d, c, a
b = cp.asarray(np.asfortranarray(rng.uniform(-1, 1, (24, 312)).astype(np.float16)), order="F")  # b, d
subs = "dca,bd->abc"
ref = cp.einsum(subs, a.astype(cp.float64), b.astype(cp.float64))
r = torch.einsum(subs, torch.from_dlpack(a), torch.from_dlpack(b))
if mode == "torch":
    call = lambda: torch.einsum(subs, torch.from_dlpack(a), torch.from_dlpack(b))  # noqa: E731
    out = cp.from_dlpack(call())
else:
    d = cp.empty((312, 24, 296), cp.float16, order="F") if mode == "d" else peers.empty_in_layout(r, cp.float16)
    call = peers.gettpy_call(subs, a, b, d, "f16", "none")
    out = call()
err = float(cp.abs(out.astype(cp.float64) - ref).max() / cp.abs(ref).max())
print(mode, "strides", out.strides, "rel err", err)
assert err < 1e-2
for _ in range(3):
    call()
cp.cuda.Device().synchronize()
