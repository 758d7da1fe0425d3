"""Host overhead of a cached call: gettpy.einsum, gettpy.contract, and the peers, on tiny tensors.

    python -m tccg.probes.overhead [--calls 20000]

The tensors are tiny (a 32x32x32 contraction), so the GPU finishes each kernel long before the host
issues the next: wall-clock time per call of a loop of back-to-back calls (one synchronize at the
end), median of 7 loops, is the host cost of a call. Needs a GPU; prints one line per API.
"""
from __future__ import annotations

import argparse
import statistics
import time


def _per_call(fn, calls: int) -> float:
    import cupy

    fn()
    cupy.cuda.Device().synchronize()
    loops = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        cupy.cuda.Device().synchronize()
        loops.append((time.perf_counter() - t0) / calls)
    return statistics.median(loops) * 1e6


def main(argv=None) -> int:
    import cupy

    import gettpy

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=20000)
    args = ap.parse_args(argv)
    a = cupy.random.rand(32, 32, 32).astype(cupy.float16)
    b = cupy.random.rand(32, 32, 32).astype(cupy.float16)
    c = cupy.empty((32, 32, 32, 32), dtype=cupy.float16)
    subs = "abk,kcd->abcd"
    desc = gettpy.TensorDescriptor.of
    plan = gettpy.plan(desc(a), "abk", desc(b), "kcd", desc(c), "abcd")
    rows = [
        ("gettpy.einsum(out=c), cached", lambda: gettpy.einsum(subs, a, b, out=c)),
        ("gettpy.einsum (allocates out), cached", lambda: gettpy.einsum(subs, a, b)),
        ("gettpy.contract(plan, ...)", lambda: gettpy.contract(plan, 1.0, a, b, 0.0, None, c)),
        ("cupy.einsum", lambda: cupy.einsum(subs, a, b)),
    ]
    try:
        import torch

        ta, tb = torch.as_tensor(a, device="cuda"), torch.as_tensor(b, device="cuda")
        rows.append(("torch.einsum", lambda: torch.einsum(subs, ta, tb)))
    except Exception as e:  # noqa: BLE001 - torch is optional
        print(f"torch: not measured ({type(e).__name__})")
    print(f"device: {cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}; {args.calls} calls x 7 loops")
    for name, fn in rows:
        print(f"{name:<40} {_per_call(fn, args.calls):8.1f} us/call")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
