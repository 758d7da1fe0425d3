"""GPU fuzz: random contractions over every kernel dtype (and complex, as real launches), random extents
and strided views, against numpy float64 / complex128. The number of cases is GETTPY_GPU_FUZZ_N (default
1000); each case is a new kernel specialisation (extents are compile-time constants), so the cases are
dealt to SHARDS tests (case i to shard i % SHARDS, each case drawn from its own seeded generator), which
pytest-xdist runs side by side: as one test the fuzz took 418 s of the GPU suite's 524 s on the H100."""
from __future__ import annotations

import os
import string

import numpy as np
import pytest

import gettpy

N_CASES = int(os.environ.get("GETTPY_GPU_FUZZ_N", "1000"))
SHARDS = 8
# (input dtype, output dtype, tolerance relative to sum |a||b|)
DTYPES = [("float16", "float16", 2e-2), ("float16", "float32", 2e-3), ("float32", "float32", 1e-5),
          ("float64", "float64", 1e-12), ("bfloat16", "bfloat16", 5e-2), ("complex64", "complex64", 1e-5),
          ("complex128", "complex128", 1e-12)]


def _case(rng):
    letters = list(string.ascii_lowercase[: rng.integers(2, 7)])
    ext = {m: int(rng.choice([1, 2, 3, 5, 7, 8, 13, 16, 24, 33])) for m in letters}
    a = [m for m in letters if rng.random() < 0.7] or letters[:1]
    b = [m for m in letters if rng.random() < 0.7] or letters[-1:]
    rng.shuffle(a)
    rng.shuffle(b)
    pool = sorted(set(a) | set(b))
    out = [m for m in pool if rng.random() < 0.5]
    rng.shuffle(out)
    return a, b, out, ext


def _operand(rng, modes, ext, xp, dtype):
    shape = [ext[m] * (2 if rng.random() < 0.3 else 1) for m in modes]
    base = rng.uniform(-1, 1, shape)
    if dtype.startswith("complex"):
        base = base + 1j * rng.uniform(-1, 1, shape)
    view = base[tuple(slice(None, None, 2) if s != ext[m] else slice(None) for s, m in zip(shape, modes, strict=True))]
    if view.ndim and rng.random() < 0.3:
        ax = int(rng.integers(view.ndim))
        view = np.flip(view, ax)
    host = np.asarray(view)
    if dtype == "bfloat16":
        import torch
        t = torch.as_tensor(np.array(host, order="C", copy=True), device="cuda").to(torch.bfloat16)
        return t, t.double().cpu().numpy()
    d = xp.asarray(host.astype(dtype))
    if host.ndim and rng.random() < 0.5:  # a strided device view: transpose
        perm = tuple(rng.permutation(host.ndim))
        inv = tuple(np.argsort(perm))
        d = xp.ascontiguousarray(d.transpose(perm)).transpose(inv)
    return d, host.astype(dtype).astype(np.complex128 if dtype.startswith("complex") else np.float64)


@pytest.mark.gpu
@pytest.mark.parametrize("shard", range(SHARDS))
def test_gpu_fuzz_random_contractions(shard):
    import cupy

    failures, counts = [], {}
    for i in range(shard, N_CASES, SHARDS):
        rng = np.random.default_rng([20261122, i])
        din, dout, tol = DTYPES[i % len(DTYPES)]
        if din == "bfloat16":
            try:
                import torch  # noqa: F401
            except ImportError:
                continue
        a, b, out, ext = _case(rng)
        subs = f"{''.join(a)},{''.join(b)}->{''.join(out)}"
        (da, ha), (db, hb) = (_operand(rng, t, ext, cupy, din) for t in (a, b))
        kw = {"dtype": cupy.float32} if (din, dout) == ("float16", "float32") else {}
        try:
            got = gettpy.einsum(subs, da, db, **kw)
            got = got.double().cpu().numpy() if din == "bfloat16" else cupy.asnumpy(got).astype(ha.dtype)
        except Exception as e:  # noqa: BLE001 - collected and reported below
            failures.append(f"{i} {subs} {din}->{dout} ext={ext}: {type(e).__name__}: {e}")
            continue
        ref = np.einsum(subs, ha, hb)
        # relative to sum |a||b|, plus the output type's subnormal spacing (a product of 1e-7 rounds
        # to an f16 subnormal with ~6e-8 absolute precision; the CPU executor rounds it the same way)
        tiny = 0.0 if dout == "bfloat16" else float(np.finfo(np.dtype(dout)).smallest_subnormal)
        scale = np.einsum(subs, np.abs(ha), np.abs(hb)) + 1e-30
        err = float(np.max((np.abs(got - ref) - tiny).clip(0) / scale, initial=0.0)) if ref.size else 0.0
        if not np.all(np.isfinite(got)) or err > tol:
            failures.append(f"{i} {subs} {din}->{dout} ext={ext}: rel err {err:.2e} > {tol:.0e}")
        counts[(din, dout)] = counts.get((din, dout), 0) + 1
    print(f"GPU fuzz shard {shard}: {sum(counts.values())} contractions checked, per dtype {counts}, "
          f"{len(failures)} failures")
    for f in failures[:30]:
        print("  FAIL", f)
    assert counts, "no contraction checked"
    assert not failures, f"{len(failures)} random contractions of shard {shard} failed (first: {failures[0]})"
