"""GPU resources, concurrency and interop (skipped without a device).

* offsets beyond 2^31 elements take the 64-bit path automatically and read the right elements;
* 10,000 cached executions (einsum, a split-K schedule with its workspace, a Contraction) leave CuPy's
  memory pool where it was;
* one plan executed from several threads, each on its own stream, at once;
* a specialisation that fails to load or launch falls back to the safe tile with a warning;
* torch operands: the kernel runs on torch's current stream, torch in -> torch out, `out` written in place.

Every result is checked against a float64 numpy reference.
"""
from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest
from harness import assert_close

import gettpy

pytestmark = pytest.mark.gpu


def _f16(rng, shape):
    return rng.uniform(-1, 1, size=shape).astype(np.float16)


def test_more_than_2_31_elements():
    """A (2^21 + 5) x 1024 fp16 operand: 2^31 + 5120 elements, read through 64-bit offsets."""
    import cupy as cp
    from harness import run_contraction

    from gettpy.plan.tiles import kernel_spec

    rng = np.random.default_rng(0)
    rows, k, j, period = 2**21 + 5, 1024, 8, 1031
    p, hb = _f16(rng, (period, k)), _f16(rng, (k, j))
    a = cp.asarray(p)[cp.arange(rows) % period]  # row i of A is row i % 1031 of p
    assert a.size > 2**31
    b = cp.asarray(hb)
    ref = p.astype(np.float64) @ hb.astype(np.float64)
    tol = 1e-4 * float((np.abs(p).astype(np.float64) @ np.abs(hb).astype(np.float64)).max())
    idx = np.arange(rows) % period

    d = cp.full((rows, j), np.nan, dtype=cp.float32)
    plan = run_contraction("ik", "kj", "ij", a, b, d, "f16", "f32")
    assert kernel_spec(plan, False).index64
    assert float(np.abs(cp.asnumpy(d) - ref[idx]).max()) <= tol

    got = gettpy.einsum("ik,kj->ij", a, b, dtype=np.float32)  # the front end picks the same path
    assert float(np.abs(cp.asnumpy(got) - ref[idx]).max()) <= tol
    del a, d, got
    cp.get_default_memory_pool().free_all_blocks()


def test_no_memory_growth_over_10000_executions():
    import cupy as cp

    rng = np.random.default_rng(1)
    ha, hb = _f16(rng, (64, 48)), _f16(rng, (48, 40))
    hk, hl = _f16(rng, (32, 16384)), _f16(rng, (16384, 24))  # small M x N, long K: split-K
    a, b, k, l = (cp.asarray(x) for x in (ha, hb, hk, hl))
    out = cp.empty((64, 40), dtype=cp.float32)
    out_k = cp.empty((32, 24), dtype=cp.float32)
    con = gettpy.Contraction("ik,kj->ij", k, l, out=out_k)
    assert con.plan().plan.split_mode is not None  # the workspace path is exercised

    def calls():
        gettpy.einsum("ik,kj->ij", a, b, out=out, dtype=np.float32)
        con.execute()
        return gettpy.einsum("ik,kj->ij", a, b)

    # the warm-up keeps the previous result alive while the next is allocated, exactly as the measured
    # loop does (a pattern with one more live array may take one more pool block, which is not growth)
    for _ in range(100):
        last = calls()
    cp.cuda.Device().synchronize()
    pool = cp.get_default_memory_pool()
    used, total = pool.used_bytes(), pool.total_bytes()
    for _ in range(10_000):
        last = calls()
    cp.cuda.Device().synchronize()
    assert pool.used_bytes() <= used, (used, pool.used_bytes())
    assert pool.total_bytes() <= total, (total, pool.total_bytes())
    assert_close(cp.asnumpy(last), ha.astype(np.float64) @ hb.astype(np.float64), np.float16)
    assert_close(cp.asnumpy(out), ha.astype(np.float64) @ hb.astype(np.float64), np.float32)
    assert_close(cp.asnumpy(out_k), hk.astype(np.float64) @ hl.astype(np.float64), np.float16)


def test_one_plan_from_many_threads_and_streams():
    import cupy as cp

    rng = np.random.default_rng(2)
    ha, hb = rng.standard_normal((96, 80)).astype(np.float32), rng.standard_normal((80, 72)).astype(np.float32)
    a, b = cp.asarray(ha), cp.asarray(hb)
    plan = gettpy.plan(gettpy.TensorDescriptor.of(a), "ik", gettpy.TensorDescriptor.of(b), "kj",
                       gettpy.TensorDescriptor.of(cp.empty((96, 72), cp.float32)), "ij")
    ref = ha.astype(np.float64) @ hb.astype(np.float64)
    errors, results = [], {}

    def work(t):
        try:
            s = cp.cuda.Stream(non_blocking=True)
            scale = float(t + 1)
            outs = []
            with s:
                for _ in range(50):
                    d = cp.full((96, 72), np.nan, dtype=cp.float32)
                    gettpy.contract(plan, scale, a, b, 0.0, None, d, stream=s)
                    e = gettpy.einsum("ik,kj->ij", a * scale, b)  # front end on the thread's current stream
                    outs.append((d, e))
            s.synchronize()
            results[t] = [(cp.asnumpy(d), cp.asnumpy(e)) for d, e in outs]
        except Exception as exc:  # noqa: BLE001 -- reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
    for t, outs in results.items():
        for d, e in outs:
            assert_close(d, (t + 1) * ref)
            assert_close(e, (t + 1) * ref)


def test_launch_failure_falls_back_to_the_safe_tile(monkeypatch):
    import cupy as cp
    from harness import run_contraction

    from gettpy.backends import gpu

    for name in ("_SPECS", "_SPECS_BY_ID", "_FUNCS_BY_ID"):
        monkeypatch.setattr(gpu, name, {})
    real = gpu.get_function
    seen = []

    def flaky(spec):
        seen.append(spec.tile)
        if spec.tile != gpu.safe_tile(spec):
            raise cp.cuda.driver.CUDADriverError(701)  # CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
        return real(spec)

    monkeypatch.setattr(gpu, "get_function", flaky)
    rng = np.random.default_rng(3)
    ha, hb = _f16(rng, (300, 260)), _f16(rng, (260, 280))
    a, b = cp.asarray(ha), cp.asarray(hb)
    ref = ha.astype(np.float64) @ hb.astype(np.float64)
    d = cp.full((300, 280), np.nan, dtype=cp.float32)
    with pytest.warns(RuntimeWarning, match="failed to load or launch"):
        run_contraction("ik", "kj", "ij", a, b, d, "f16", "f32")
    assert seen[0] != seen[-1]  # the heuristic tile was tried first
    assert_close(cp.asnumpy(d), ref, np.float32)
    seen.clear()
    d[...] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run_contraction("ik", "kj", "ij", a, b, d, "f16", "f32")  # the safe tile is remembered
    assert_close(cp.asnumpy(d), ref, np.float32)


def test_torch_operands_run_on_torchs_current_stream(monkeypatch):
    torch = pytest.importorskip("torch")
    import cupy as cp

    from gettpy.backends import gpu

    streams = []
    real = gpu.launch

    def spy(*args, **kwargs):
        streams.append(cp.cuda.get_current_stream().ptr)
        return real(*args, **kwargs)

    monkeypatch.setattr(gpu, "launch", spy)
    s = torch.cuda.Stream()
    w = torch.randn(2048, 2048, device="cuda")
    with torch.cuda.stream(s):
        x = torch.randn(2048, 2048, device="cuda")
        for _ in range(10):  # slow work queued on s before the operand is final
            x = torch.tanh(x @ w) * 0.5
        a = (x[:256, :128] + 1.0).to(torch.float16)
        b = torch.randn(128, 96, device="cuda", dtype=torch.float16)
        r = gettpy.einsum("ik,kj->ij", a, b)
        out = torch.empty(256, 96, device="cuda", dtype=torch.float32)
        r2 = gettpy.einsum("ik,kj->ij", a, b, out=out, dtype=np.float32)
    s.synchronize()
    assert streams and all(p == s.cuda_stream for p in streams)
    assert isinstance(r, torch.Tensor) and r.is_cuda and r.dtype == torch.float16
    assert r2.data_ptr() == out.data_ptr()
    ref = a.double().cpu().numpy() @ b.double().cpu().numpy()
    assert_close(r.cpu().numpy(), ref)
    assert_close(out.cpu().numpy(), ref)


def test_cuda_array_interface_and_cupy_in_cupy_out():
    import cupy as cp

    class Foreign:  # an array from some other library that only speaks __cuda_array_interface__
        def __init__(self, x):
            self._x = x
            self.__cuda_array_interface__ = x.__cuda_array_interface__

    rng = np.random.default_rng(4)
    ha, hb = rng.standard_normal((20, 30)), rng.standard_normal((30, 10))
    r = gettpy.einsum("ik,kj->ij", Foreign(cp.asarray(ha)), Foreign(cp.asarray(hb)))
    assert isinstance(r, cp.ndarray)
    assert_close(cp.asnumpy(r), ha @ hb)
