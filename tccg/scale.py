"""Scaling of gettpy.dask over GPUs: large contractions on 1 and N GPUs against single-GPU gettpy.

    python -m tccg.scale [--gpus 2] [--dtypes f32,f64] [--reps 3] [--csv scale.csv] [--no-big | --only-big]

With CuPy, GPUs and dask_cuda it runs, on a ``dask_cuda.LocalCUDACluster`` of 1 and then N workers (one per
GPU; spilling to host off, so that nothing but the contraction is timed):

* ``ccsd``: a CCSD-like particle-particle ladder ``R[abij] = V[abcd] T[cdij]`` (the output split over a),
* ``batched``: a batched tensor contraction ``C[zijl] = A[zikj] B[zkl]`` (split over the batch mode z),

in float32 and float64, operands generated block by block on the workers' GPUs and persisted there. For each
it reports the wall time of the whole contraction (median of ``--reps`` runs after one warm-up run that
compiles the kernels and moves the replicated operand), the rate, the speed-up and scaling efficiency against
the 1-GPU run, and the per-GPU rate against single-GPU gettpy on one block of the same shape (timed in
this process with CUDA events). Then ``big``: a float64 ladder whose V alone is larger than one GPU's
memory, on the N GPUs, V held in the workers' host memory and streamed block by block to the GPUs
(gettpy.dask.einsum's ``stream=``), chunked by ``suggest_chunks`` for the GPUs' real memory, checked against
a float64 numpy reference on sampled output blocks.

Without dask_cuda it builds the same cluster by hand (one ``distributed.Nanny`` per GPU, each with its own
``CUDA_VISIBLE_DEVICES``). Without a GPU (or with ``--cpu``) it runs the same steps, small, on gettpy's CPU
executor with a ``distributed.LocalCluster`` of 1 and 2 worker processes standing in for the GPUs, and says
so: those numbers are not GPU numbers (and this machine's cores may be shared).
"""
from __future__ import annotations

import argparse
import csv
import math
import statistics
import sys
import time

import numpy as np

import gettpy

DTYPES = {"f32": np.float32, "f64": np.float64}


def _flops(subscripts: str, shapes) -> float:
    """2 x the product of all extents: the multiply-adds of a binary contraction."""
    ext = {}
    for term, shape in zip(subscripts.split("->")[0].split(","), shapes, strict=True):
        ext.update(zip(term, shape, strict=True))
    return 2.0 * math.prod(ext.values())


def cases(gpu: bool, n: int):
    """(name, subscripts, shapes, chunks) of the timed contractions; chunks give 2n output blocks."""
    if gpu:
        nv, no = 256, 64  # V 34 GB, T and R 2.1 GB each in float64; 35 TFLOP
        z, i, k, j, l = 96, 256, 4096, 32, 2048  # A 26 GB, B 6.4 GB, C 13 GB in float64; 13 TFLOP
    else:
        nv, no = 24, 8
        z, i, k, j, l = 8, 32, 256, 8, 128
    parts = 2 * max(n, 2)
    return [
        ("ccsd", "abcd,cdij->abij", [(nv, nv, nv, nv), (nv, nv, no, no)],
         [(-(-nv // parts), nv, nv, nv), (nv, nv, no, no)]),
        ("batched", "zikj,zkl->zijl", [(z, i, k, j), (z, k, l)],
         [(-(-z // parts), i, k, j), (-(-z // parts), k, l)]),
    ]


def _random_block(block_info=None, *, out_dtype, seed, scale, gpu, host=False):
    """One block of a random operand, generated where the task runs (the worker's GPU, or the host). With
    `gpu` and `host`: a host (numpy) block filled from the worker's GPU 1 GiB at a time, since numpy's
    generator would take minutes over the tens of GB a larger-than-one-GPU operand holds."""
    info = block_info[None]
    shape, loc = info["chunk-shape"], info["chunk-location"]
    s = (seed * 1_000_003 + sum(c * 7919 ** (d + 1) for d, c in enumerate(loc))) % 2**63
    if gpu and host:
        rng = __import__("cupy").random.default_rng(s)
        x = np.empty(shape, dtype=out_dtype)
        flat = x.reshape(-1)
        step = max(1, 2**30 // x.itemsize)
        for i in range(0, flat.size, step):
            y = rng.random(min(step, flat.size - i), dtype=out_dtype)
            y *= 2 * scale
            y -= scale
            y.get(out=flat[i:i + y.size])
        return x
    rng = (__import__("cupy").random if gpu else np.random).default_rng(s)
    x = rng.random(shape, dtype=out_dtype)
    x *= 2 * scale  # in place: a block may be a tenth of the GPU, and the worker already holds others
    x -= scale
    return x


def _operand(shape, chunks, dtype, seed, scale, gpu, host=False):
    """A random Dask array of CuPy blocks on the workers' GPUs, or (`host`, or no GPU) of numpy blocks."""
    import dask.array as da

    meta = (__import__("cupy") if gpu and not host else np).empty((0,) * len(shape), dtype=dtype)
    return da.map_blocks(_random_block, dtype=dtype, out_dtype=dtype, chunks=da.core.normalize_chunks(chunks, shape),
                         meta=meta, seed=seed, scale=scale, gpu=gpu, host=host, token="scale-operand")


def _block_rate(subscripts, chunks, dtype, reps, gpu) -> float:
    """gettpy on one block of each operand in this process (GPU 0: CUDA events; CPU: wall clock): flop/s,
    the median of `reps` calls after one that compiles."""
    if gpu:
        import cupy

        xs = [cupy.random.default_rng(i).random(c, dtype=dtype) for i, c in enumerate(chunks)]
    else:
        xs = [np.random.default_rng(i).random(c, dtype=dtype) for i, c in enumerate(chunks)]
    gettpy.einsum(subscripts, *xs)
    ts = []
    for _ in range(reps):
        if gpu:
            start, stop = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            gettpy.einsum(subscripts, *xs)
            stop.record()
            stop.synchronize()
            ts.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3)
        else:
            t0 = time.perf_counter()
            gettpy.einsum(subscripts, *xs)
            ts.append(time.perf_counter() - t0)
    del xs
    if gpu:
        cupy.get_default_memory_pool().free_all_blocks()
    return _flops(subscripts, chunks) / statistics.median(ts)


def _sync_device(gpu):
    if gpu:
        import cupy

        cupy.cuda.runtime.deviceSynchronize()
    return True


def _free_pool(gpu):
    if gpu:
        import cupy

        cupy.get_default_memory_pool().free_all_blocks()
    return True


def _blocks_per_worker(client, future) -> str:
    """How many output blocks of a persisted array each worker holds (e.g. "2 2")."""
    held: dict[str, int] = {}
    for ws in client.who_has(future).values():
        for w in ws:
            held[w] = held.get(w, 0) + 1
    return " ".join(str(held[w]) for w in sorted(held))


def _n_keys(dask_worker) -> int:
    return len(dask_worker.data)


def _n_named(name, dask_worker) -> int:
    return sum(1 for k in dask_worker.data if (k[0] if isinstance(k, tuple) else k) == name)


def _drain(client, name=None, timeout_s: float = 60.0) -> None:
    """Wait until no worker holds a block of the array `name` (None: any block). A released result must be
    gone before the same graph is submitted again, else the scheduler hands back the blocks still held."""
    t0 = time.perf_counter()

    def held():
        return sum(client.run(_n_named, name).values()) if name else sum(client.run(_n_keys).values())

    while held():
        if time.perf_counter() - t0 > timeout_s:
            raise RuntimeError(f"workers still hold {held()} blocks of {name or 'anything'} after {timeout_s} s")
        time.sleep(0.05)


def _release(client, gpu) -> None:
    """Drop everything on the workers and empty their CuPy memory pools (the next case's operands must not
    share a GPU with the last one's)."""
    _drain(client)
    client.run(_free_pool, gpu)


def _persist_timed(client, expr, gpu):
    """Seconds to compute `expr` on the workers, GPUs synchronised; the result released before returning
    (and the blocks per worker, as _blocks_per_worker)."""
    import distributed

    t0 = time.perf_counter()
    f = client.persist(expr)
    distributed.wait(f)
    client.run(_sync_device, gpu)
    el = time.perf_counter() - t0
    placed = _blocks_per_worker(client, f)
    del f
    _drain(client, expr.name)
    return el, placed


def _timed(run, reps):
    first = run()
    return first, statistics.median(run() for _ in range(reps))


def _row(name, dtype, n, subs, shapes, chunks, first, med, block_rate, base):
    fl = _flops(subs, shapes)
    rate = fl / med
    row = {"case": name, "dtype": dtype, "gpus": n, "shapes": " ".join("x".join(map(str, s)) for s in shapes),
           "chunks": " ".join("x".join(map(str, c)) for c in chunks), "tflop": fl / 1e12, "first_s": first,
           "time_s": med, "tflops": rate / 1e12, "per_gpu_tflops": rate / n / 1e12,
           "block_tflops": block_rate / 1e12 if block_rate else float("nan"),
           "per_gpu_vs_block": rate / n / block_rate if block_rate else float("nan"),
           "speedup": base / med if base else 1.0, "efficiency": base / med / n if base else 1.0}
    print(f"{name:8s} {dtype:4s} {n:2d}  {med * 1e3:9.1f} ms (first {first:6.2f} s)  {row['tflops']:7.3g} TF/s  "
          f"per GPU {row['per_gpu_tflops']:6.3g}  block {row['block_tflops']:6.3g}  "
          f"per-GPU/block {row['per_gpu_vs_block']:5.2f}  speed-up {row['speedup']:5.2f}  "
          f"eff {row['efficiency']:5.2f}", flush=True)
    return row


def _check_samples(r, v, t, host, samples=3, seed=7, host_v=None) -> float:
    """Largest |error| / magnitude on sampled 2 x 2 (a, b) output blocks against numpy float64 (`host`, and
    `host_v` for V where it differs, bring a Dask array's blocks to numpy)."""
    rng = np.random.default_rng(seed)
    host_v = host if host_v is None else host_v
    th = host(t).compute()
    worst = 0.0
    for _ in range(samples):
        a0 = int(rng.integers(0, v.shape[0] - 1))
        b0 = int(rng.integers(0, v.shape[1] - 1))
        vs = host_v(v[a0:a0 + 2, b0:b0 + 2]).compute().astype(np.float64)
        ref = np.einsum("abcd,cdij->abij", vs, th.astype(np.float64), optimize=True)
        mag = np.einsum("abcd,cdij->abij", np.abs(vs), np.abs(th).astype(np.float64), optimize=True)
        got = host(r[a0:a0 + 2, b0:b0 + 2]).compute()
        worst = max(worst, float((np.abs(got - ref) / np.maximum(mag, 1e-300)).max()))
    return worst


def _cluster(workers: int, gpu: bool):
    """dask_cuda.LocalCUDACluster (spilling off, to host and to disk: nothing but the contraction is timed, and
    the larger-than-one-GPU case keeps its V in the workers' host memory); where dask_cuda
    does not import, the same layout by hand: one worker process per GPU, each seeing only its own
    (CUDA_VISIBLE_DEVICES set in the worker's environment before it starts). On the CPU, a LocalCluster."""
    import distributed

    if gpu:
        try:
            from dask_cuda import LocalCUDACluster
        except Exception as exc:  # noqa: BLE001 - missing, or a dependency of it (cuda-core) too old
            print(f"(dask_cuda unavailable: {type(exc).__name__}: {exc}; one Nanny per GPU instead)", flush=True)
        else:
            return LocalCUDACluster(CUDA_VISIBLE_DEVICES=",".join(map(str, range(workers))), n_workers=workers,
                                    device_memory_limit=0, memory_limit=0, dashboard_address=None)
        spec = {i: {"cls": distributed.Nanny, "options": {"nthreads": 1, "memory_limit": 0,
                                                          "env": {"CUDA_VISIBLE_DEVICES": str(i)}}}
                for i in range(workers)}
        return distributed.SpecCluster(workers=spec, scheduler={"cls": distributed.Scheduler,
                                                                "options": {"dashboard_address": None}})
    return distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                    dashboard_address=None)


def run(args, gpu: bool) -> list[dict]:
    import dask
    import distributed

    import gettpy.dask as gdask

    if gpu:
        import cupy

        n = min(args.gpus, cupy.cuda.runtime.getDeviceCount())
        mem = cupy.cuda.Device(0).mem_info[1]
        print(f"{n} GPU(s): {cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}, {mem / 1e9:.1f} GB each; "
              f"dask {dask.__version__}, distributed {distributed.__version__}", flush=True)

        def host(x):
            return x.map_blocks(cupy.asnumpy, dtype=x.dtype, meta=np.empty((0,) * x.ndim, dtype=x.dtype))
    else:
        n, mem = 2, None
        print("no GPU: the small CPU version, on gettpy's CPU executor, with a distributed "
              "LocalCluster of 1 and 2 worker processes standing in for GPUs; these are not GPU numbers",
              flush=True)

        def host(x):
            return x
    todo = [] if args.only_big else [(c, dt) for c in cases(gpu, n) for dt in args.dtypes]
    block = {(c[0], dt): _block_rate(c[1], c[3], DTYPES[dt], args.reps, gpu) for c, dt in todo}
    rows, base = [], {}
    # the active memory manager off: copies of an operand that every task reads (the ladder's T) stay on the
    # workers that fetched them, so that the timed runs after the warm-up measure the contraction
    with dask.config.set({"distributed.scheduler.active-memory-manager.start": False}):
        for workers in [n] if args.only_big else sorted({1, n}):
            with _cluster(workers, gpu) as cluster, distributed.Client(cluster) as client:
                for (name, subs, shapes, chunks), dt in todo:
                    xs = [_operand(s, c, DTYPES[dt], seed, 1.0 if seed else 0.1, gpu)
                          for seed, (s, c) in enumerate(zip(shapes, chunks, strict=True))]
                    xs = client.persist(xs)
                    distributed.wait(xs)
                    expr = gdask.einsum(subs, *xs)
                    placed = []

                    def once(expr=expr, placed=placed):
                        el, where = _persist_timed(client, expr, gpu)
                        placed[:] = [where]
                        return el

                    first, med = _timed(once, args.reps)
                    rows.append(_row(name, dt, workers, subs, shapes, chunks, first, med, block[(name, dt)],
                                     base.get((name, dt))))
                    rows[-1]["blocks_per_worker"] = placed[0]
                    print(f"{'':17s}output blocks per worker: {placed[0]}", flush=True)
                    base.setdefault((name, dt), med)
                    del xs, expr, once
                    _release(client, gpu)
                if workers == n and n >= 2 and not args.no_big:
                    rows.append(_big(client, n, mem, host, gpu))
    return rows


def _host_copy(x):
    """The CPU version's stand-in for moving a streamed block to the device: a copy of it."""
    return np.array(x)


def _big(client, n, mem, host, gpu) -> dict:
    """A float64 ladder whose V is larger than one GPU's memory (on the CPU: larger than a stand-in
    memory of half of V), on n workers; sampled output blocks checked against numpy in float64.

    V lives in the workers' host memory (numpy blocks, persisted there) and is streamed: each block task
    moves the V block it reads to its GPU and frees it when done (gettpy.dask.einsum's stream=). The
    chunks are suggest_chunks' for the real per-GPU memory, counting the streamed block, the block
    contraction's planned workspace and each worker's share of T and R."""
    import distributed

    import gettpy.dask as gdask

    no = 32 if gpu else 8
    if gpu:
        nv = 16 * math.ceil((1.05 * mem / 8) ** 0.25 / 16)  # smallest multiple of 16 with V > 1.05 x one GPU
    else:
        nv = 32
        mem = nv ** 4 * 8 // 2
    shapes = [(nv, nv, nv, nv), (nv, nv, no, no)]
    vbytes = nv ** 4 * 8
    sug = gdask.suggest_chunks("abcd,cdij->abij", shapes, np.float64, memory_bytes=mem, parallelism=n,
                               streamed=(0,), **({} if gpu else {"min_out_block": 1, "min_k": 1}))
    chunks = list(sug.operands)
    print(f"big: V {vbytes / 1e9:.3g} GB > one {'GPU' if gpu else 'stand-in memory'}'s {mem / 1e9:.3g} GB, "
          f"streamed from host memory; suggest_chunks: V chunks {chunks[0]}, T chunks {chunks[1]}, working set "
          f"{sug.working_set_bytes / 1e9:.3g} GB per worker (block workspace {sug.workspace_bytes / 1e9:.3g} GB, "
          f"held {sug.resident_bytes / 1e9:.3g} GB)", flush=True)
    v = _operand(shapes[0], chunks[0], np.float64, 11, 1.0, gpu, host=True)  # numpy blocks: host memory
    t = _operand(shapes[1], chunks[1], np.float64, 12, 0.1, gpu)
    v, t = client.persist([v, t])
    distributed.wait([v, t])
    expr = gdask.einsum("abcd,cdij->abij", v, t, stream=(0,), to_device=None if gpu else _host_copy)
    # the first run compiles the block kernels and copies T to every worker; the second is timed
    first, _ = _persist_timed(client, expr, gpu)
    el, placed = _persist_timed(client, expr, gpu)
    r = client.persist(expr)
    distributed.wait(r)
    err = _check_samples(r, v, t, host, host_v=lambda x: x)
    fl = _flops("abcd,cdij->abij", shapes)
    ok = err < 1e-11
    print(f"big      f64 {n:2d}  {el * 1e3:9.1f} ms (first {first:6.2f} s)  {fl / el / 1e12:7.3g} TF/s  "
          f"output blocks per worker: {placed}; sampled blocks: max |err|/magnitude "
          f"{err:.2e} {'OK' if ok else 'MISMATCH'}", flush=True)
    row = {"case": "big", "dtype": "f64", "gpus": n, "shapes": " ".join("x".join(map(str, s)) for s in shapes),
           "chunks": " ".join("x".join(map(str, c)) for c in chunks), "tflop": fl / 1e12, "first_s": first,
           "time_s": el, "tflops": fl / el / 1e12, "per_gpu_tflops": fl / el / n / 1e12,
           "blocks_per_worker": placed, "check_err": err}
    del r, v, t, expr
    _release(client, gpu)
    if not ok:
        raise SystemExit(f"big case: sampled blocks differ from the float64 reference (max rel. error {err:.2e})")
    return row


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tccg.scale", description=__doc__.split("\n\n")[0])
    p.add_argument("--gpus", type=int, default=2, help="GPUs for the multi-GPU runs (default 2)")
    p.add_argument("--dtypes", default="f32,f64", help="comma-separated: f32, f64")
    p.add_argument("--reps", type=int, default=3, help="timed runs per case (median)")
    p.add_argument("--csv", help="write the rows to this CSV file")
    p.add_argument("--no-big", action="store_true", help="skip the contraction larger than one GPU")
    p.add_argument("--only-big", action="store_true", help="run only the contraction larger than one GPU")
    p.add_argument("--cpu", action="store_true", help="run the small CPU version even where a GPU is present")
    args = p.parse_args(argv)
    if args.only_big and args.no_big:
        p.error("--only-big and --no-big exclude each other")
    args.dtypes = [d for d in args.dtypes.split(",") if d]
    bad = [d for d in args.dtypes if d not in DTYPES]
    if bad:
        p.error(f"--dtypes: unknown {bad}; choose from {sorted(DTYPES)}")
    gpu = False
    if not args.cpu:
        try:
            import cupy

            gpu = cupy.cuda.runtime.getDeviceCount() > 0
        except Exception as exc:  # noqa: BLE001 - no CuPy or no device: the CPU version
            print(f"(GPU version unavailable: {type(exc).__name__}: {exc})", file=sys.stderr)
            gpu = False
    rows = run(args, gpu)
    if args.csv and rows:
        keys = list(dict.fromkeys(k for r in rows for k in r))
        with open(args.csv, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=keys)
            w.writeheader()
            w.writerows(rows)
        print(f"wrote {args.csv}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
