"""gettpy.dask on GPUs: CuPy-chunked Dask arrays on one device (threaded scheduler) and on one and two GPUs
through dask_cuda.LocalCUDACluster, against numpy.einsum in float64 (and enumeration for semirings).

Skips cleanly where CuPy, a device, Dask, distributed or dask_cuda is missing (the GPU machines carry
Dask's wheels: docs/dask.md says how)."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
gdask = importlib.import_module("gettpy.dask")


def _cupy():
    cupy = pytest.importorskip("cupy")
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - no driver / no device
        n = 0
    if n < 1:
        pytest.skip("no CUDA device")
    return cupy, n


def _on_gpu(x, chunks):
    """A CuPy-chunked Dask array from host data: each block is moved to the device of the worker that
    makes it (so that under LocalCUDACluster the blocks are born on the workers' own GPUs)."""
    cupy = importlib.import_module("cupy")
    return da.from_array(x, chunks=chunks).map_blocks(cupy.asarray, dtype=x.dtype,
                                                      meta=cupy.empty((0,) * x.ndim, dtype=x.dtype))


def _to_host(r):
    cupy = importlib.import_module("cupy")
    return r.map_blocks(cupy.asnumpy, dtype=r.dtype, meta=np.empty((0,) * r.ndim, dtype=r.dtype))


def _close(got, ref, mag, rtol):
    got = np.asarray(got, dtype=np.float64)
    assert got.shape == ref.shape
    err = np.abs(got - ref)
    bound = rtol * np.maximum(mag, 1.0)
    assert (err <= bound).all(), f"max error {err.max()} (bound {bound.max()})"


def _cases(rng):
    a, b = rng.uniform(-1, 1, (70, 300)), rng.uniform(-1, 1, (300, 50))
    c = rng.uniform(-1, 1, (50, 40))
    return a, b, c


@pytest.mark.parametrize("dtype,rtol", [(np.float64, 1e-12), (np.float32, 1e-5)])
def test_cupy_chunks_threaded(rng, dtype, rtol):
    _cupy()
    a, b, c = _cases(rng)
    da_, db_, dc_ = _on_gpu(a.astype(dtype), (32, 128)), _on_gpu(b.astype(dtype), (128, 24)), _on_gpu(
        c.astype(dtype), (24, 40))
    r = gdask.einsum("ij,jk,kl->il", da_, db_, dc_)
    assert type(r._meta).__module__.startswith("cupy")
    with dask.config.set(scheduler="threads"):
        got = _to_host(r).compute()
    aa, bb, cc = (x.astype(dtype).astype(np.float64) for x in (a, b, c))
    _close(got, aa @ bb @ cc, np.abs(aa) @ np.abs(bb) @ np.abs(cc), rtol)
    r = gdask.einsum("ij,jk->ik", da_, db_, semiring="max_plus", op_out="neg")
    ref = -(aa[:, :, None] + bb[None]).max(axis=1)
    np.testing.assert_allclose(_to_host(r).compute(scheduler="sync"), ref, rtol=0, atol=1e-6)


@pytest.mark.parametrize("order", ["C", "F"])
def test_streamed_blocks_copied_without_pinned_staging(rng, order):
    """Streamed numpy blocks (row- and column-major views) reach the GPU by a direct copy: the result matches
    numpy, and no pinned buffer of a block's size is allocated (cupy.asarray would stage each block in one)."""
    cupy, _ = _cupy()
    a, b, _ = _cases(rng)
    db = da.from_array(cupy.asarray(b), chunks=(150, 50), asarray=False)
    pool = cupy.get_default_pinned_memory_pool()
    sizes = []

    def recording_malloc(nbytes):
        sizes.append(nbytes)
        return pool.malloc(nbytes)

    ha = da.from_array(np.asarray(a, order=order), chunks=(35, 150))
    r = gdask.einsum("ij,jk->ik", ha, db, stream=(0,))
    cupy.cuda.set_pinned_memory_allocator(recording_malloc)
    try:
        with dask.config.set(scheduler="threads"):
            got = r.compute()
        cupy.cuda.Device().synchronize()
    finally:
        cupy.cuda.set_pinned_memory_allocator(pool.malloc)
    assert max(sizes, default=0) < 35 * 150 * 8, f"pinned allocations of {sizes} bytes: a block was staged"
    _close(cupy.asnumpy(got), a @ b, np.abs(a) @ np.abs(b), 1e-12)


def _cluster(n_gpus):
    cupy, n = _cupy()
    if n < n_gpus:
        pytest.skip(f"needs {n_gpus} GPUs, {n} visible")
    pytest.importorskip("distributed")
    dask_cuda = pytest.importorskip("dask_cuda")
    return dask_cuda.LocalCUDACluster(CUDA_VISIBLE_DEVICES=",".join(map(str, range(n_gpus))),
                                      n_workers=n_gpus, dashboard_address=None)


@pytest.mark.parametrize("n_gpus", [1, 2])
def test_local_cuda_cluster(rng, n_gpus):
    distributed = pytest.importorskip("distributed")
    with _cluster(n_gpus) as cluster, distributed.Client(cluster) as client:
        a, b, c = _cases(rng)
        ds = [_on_gpu(a, (35, 100)), _on_gpu(b, (100, 25)), _on_gpu(c, (25, 40))]
        r = gdask.einsum("ij,jk,kl->il", *ds, ops=[None, "abs", None], op_out="relu")
        host = _to_host(r)
        with distributed.get_task_stream(client) as ts:
            got = host.compute()
        ref = np.maximum(a @ np.abs(b) @ c, 0)
        _close(got, ref, np.abs(a) @ np.abs(b) @ np.abs(c), 1e-12)
        # the graph's tasks (the block contractions fused into them) ran on every worker
        workers = gdask.task_workers(ts.data, host)
        assert len(workers) == n_gpus, f"the graph's tasks ran on {len(workers)} of {n_gpus} workers: {workers}"
        # an operand streamed from host memory: numpy blocks, moved to each task's GPU inside it
        hb = da.from_array(b, chunks=(100, 25))
        r = gdask.einsum("ij,jk,kl->il", ds[0], hb, ds[2], stream=(1,))
        assert type(r._meta).__module__.startswith("cupy")
        _close(_to_host(r).compute(), a @ b @ c, np.abs(a) @ np.abs(b) @ np.abs(c), 1e-12)
        # semiring with a split contracted mode: the partials are combined on the GPUs with max
        r = gdask.einsum("ij,jk->ik", ds[0], ds[1], semiring="max_plus", split_every=2)
        np.testing.assert_array_equal(_to_host(r).compute(), (a[:, :, None] + b[None]).max(axis=1))


def test_cupy_chunks_half_inputs_float32_result(rng):
    _cupy()
    a, b, _ = _cases(rng)
    h, g = a.astype(np.float16), b.astype(np.float16)
    r = gdask.einsum("ij,jk->ik", _on_gpu(h, (32, 128)), _on_gpu(g, (128, 24)), dtype=np.float32)
    assert r.dtype == np.float32
    got = _to_host(r).compute(scheduler="threads")
    hh, gg = h.astype(np.float64), g.astype(np.float64)
    _close(got, hh @ gg, np.abs(hh) @ np.abs(gg), 1e-4)
