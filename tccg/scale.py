"""Scaling of gettpy.dask over GPUs: large contractions on 1 and N GPUs against single-GPU gettpy.

    python -m tccg.scale [--gpus 2] [--dtypes f32,f64] [--reps 3] [--csv scale.csv] [--no-big]

With CuPy, GPUs and dask_cuda it runs, on a ``dask_cuda.LocalCUDACluster`` of 1 and then N workers (one per
GPU; spilling to host off, so that nothing but the contraction is timed):

* ``ccsd``: a CCSD-like particle-particle ladder ``R[abij] = V[abcd] T[cdij]`` (the output split over a),
* ``batched``: a batched tensor contraction ``C[zijl] = A[zikj] B[zkl]`` (split over the batch mode z),

in float32 and float64, operands generated block by block on the workers' GPUs and persisted there. For each
it reports the wall time of the whole contraction (median of ``--reps`` runs after one warm-up run that
compiles the kernels and moves the replicated operand), the rate, the speed-up and scaling efficiency against
the 1-GPU run, and the per-GPU rate against single-GPU gettpy on one block of the same shape (timed in
this process with CUDA events). Then ``big``: a float64 ladder whose V alone is larger than one GPU's
memory, on the N GPUs, checked against a float64 numpy reference on sampled output blocks.

Without a GPU (or without dask_cuda) it runs a small version on the CPU executor with Dask's threaded
scheduler (1 and 2 threads standing in for 1 and 2 GPUs) and says so: those numbers are not GPU numbers.
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


def _random_block(block_info=None, *, out_dtype, seed, scale, gpu):
    """One block of a random operand, generated where the task runs (the worker's GPU, or the host)."""
    info = block_info[None]
    shape, loc = info["chunk-shape"], info["chunk-location"]
    s = (seed * 1_000_003 + sum(c * 7919 ** (d + 1) for d, c in enumerate(loc))) % 2**63
    if gpu:
        import cupy

        x = cupy.random.default_rng(s).random(shape, dtype=np.float64)
    else:
        x = np.random.default_rng(s).random(shape)
    return ((2 * x - 1) * scale).astype(out_dtype)


def _operand(shape, chunks, dtype, seed, scale, gpu):
    import dask.array as da

    meta = (__import__("cupy") if gpu else np).empty((0,) * len(shape), dtype=dtype)
    return da.map_blocks(_random_block, dtype=dtype, out_dtype=dtype, chunks=da.core.normalize_chunks(chunks, shape),
                         meta=meta, seed=seed, scale=scale, gpu=gpu, token="scale-operand")


def _block_rate(subscripts, chunks, dtype, reps) -> float:
    """Single-GPU gettpy on one block of each operand (this process, GPU 0): flop/s, median of reps."""
    import cupy

    xs = [cupy.random.default_rng(i).random(c, dtype=np.float64).astype(dtype) for i, c in enumerate(chunks)]
    gettpy.einsum(subscripts, *xs)  # compile
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    ts = []
    for _ in range(reps):
        start.record()
        r = gettpy.einsum(subscripts, *xs)
        stop.record()
        stop.synchronize()
        ts.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3)
    del xs, r
    cupy.get_default_memory_pool().free_all_blocks()
    return _flops(subscripts, chunks) / statistics.median(ts)


def _sync_device():
    import cupy

    cupy.cuda.runtime.deviceSynchronize()
    return True


def _free_pool():
    import cupy

    cupy.get_default_memory_pool().free_all_blocks()
    return True


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


def _check_samples(r, v, t, host, samples=3, seed=7) -> float:
    """Largest |error| / magnitude on sampled 2 x 2 (a, b) output blocks against numpy float64."""
    rng = np.random.default_rng(seed)
    th = host(t).compute()
    worst = 0.0
    for _ in range(samples):
        a0 = int(rng.integers(0, v.shape[0] - 1))
        b0 = int(rng.integers(0, v.shape[1] - 1))
        vs = host(v[a0:a0 + 2, b0:b0 + 2]).compute().astype(np.float64)
        ref = np.einsum("abcd,cdij->abij", vs, th.astype(np.float64), optimize=True)
        mag = np.einsum("abcd,cdij->abij", np.abs(vs), np.abs(th).astype(np.float64), optimize=True)
        got = host(r[a0:a0 + 2, b0:b0 + 2]).compute()
        worst = max(worst, float((np.abs(got - ref) / np.maximum(mag, 1e-300)).max()))
    return worst


def run_gpu(args) -> list[dict]:
    import cupy
    import dask
    import dask.array as da
    import distributed
    from dask_cuda import LocalCUDACluster

    import gettpy.dask as gdask

    n = min(args.gpus, cupy.cuda.runtime.getDeviceCount())
    mem = cupy.cuda.Device(0).mem_info[1]
    print(f"{n} GPU(s): {cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}, {mem / 1e9:.1f} GB each; "
          f"dask {dask.__version__}, distributed {distributed.__version__}", flush=True)
    todo = [(c, dt) for c in cases(True, n) for dt in args.dtypes]
    block = {(c[0], dt): _block_rate(c[1], c[3], DTYPES[dt], args.reps) for c, dt in todo}
    rows, base = [], {}

    def host(x):
        return x.map_blocks(cupy.asnumpy, dtype=x.dtype, meta=np.empty((0,) * x.ndim, dtype=x.dtype))

    for workers in sorted({1, n}):
        with dask.config.set({"distributed.scheduler.active-memory-manager.start": False}), \
                LocalCUDACluster(CUDA_VISIBLE_DEVICES=",".join(map(str, range(workers))), n_workers=workers,
                                 device_memory_limit=0, dashboard_address=None) as cluster, \
                distributed.Client(cluster) as client:
            for (name, subs, shapes, chunks), dt in todo:
                xs = [_operand(s, c, DTYPES[dt], seed, 1.0 if seed else 0.1, True)
                      for seed, (s, c) in enumerate(zip(shapes, chunks, strict=True))]
                xs = client.persist(xs)
                distributed.wait(xs)
                expr = gdask.einsum(subs, *xs)

                def run(expr=expr):
                    t0 = time.perf_counter()
                    f = client.persist(expr)
                    distributed.wait(f)
                    client.run(_sync_device)
                    dt_ = time.perf_counter() - t0
                    del f
                    return dt_

                first, med = _timed(run, args.reps)
                rows.append(_row(name, dt, workers, subs, shapes, chunks, first, med, block[(name, dt)],
                                 base.get((name, dt))))
                base.setdefault((name, dt), med)
                del xs, expr
                client.run(_free_pool)
            if workers == n and n >= 2 and not args.no_big:
                rows.append(_big(client, n, mem, host, da, gdask, distributed))
    return rows


def _big(client, n, mem, host, da, gdask, distributed) -> dict:
    """A float64 ladder whose V is larger than one GPU's memory, on n GPUs; sampled blocks checked."""
    no = 32
    nv = 16 * math.ceil((1.05 * mem / 8) ** 0.25 / 16)  # smallest multiple of 16 with V > 1.05 x one GPU
    shapes = [(nv, nv, nv, nv), (nv, nv, no, no)]
    vbytes = nv ** 4 * 8
    # V blocks of about 1/8 of a GPU: each worker holds its share of V plus one block's working set
    split_b = 2
    split_a = max(n, math.ceil(vbytes / (mem / 8) / split_b))
    chunks = [(-(-nv // split_a), -(-nv // split_b), nv, nv), (nv, nv, no, no)]
    sug = gdask.suggest_chunks("abcd,cdij->abij", shapes, np.float64, memory_bytes=mem, parallelism=n)
    print(f"big: V {vbytes / 1e9:.1f} GB > one GPU's {mem / 1e9:.1f} GB; V chunks {chunks[0]} "
          f"(suggest_chunks for one GPU: {sug.operands[0]}, working set {sug.working_set_bytes / 1e9:.1f} GB)",
          flush=True)
    v = _operand(shapes[0], chunks[0], np.float64, 11, 1.0, True)
    t = _operand(shapes[1], chunks[1], np.float64, 12, 0.1, True)
    v, t = client.persist([v, t])
    distributed.wait([v, t])
    t0 = time.perf_counter()
    r = client.persist(gdask.einsum("abcd,cdij->abij", v, t))
    distributed.wait(r)
    client.run(_sync_device)
    el = time.perf_counter() - t0
    err = _check_samples(r, v, t, host)
    fl = _flops("abcd,cdij->abij", shapes)
    ok = err < 1e-11
    print(f"big      f64 {n:2d}  {el:9.2f} s (incl. compile)  {fl / el / 1e12:7.2f} TF/s  sampled blocks: "
          f"max |err|/magnitude {err:.2e} {'OK' if ok else 'MISMATCH'}", flush=True)
    row = {"case": "big", "dtype": "f64", "gpus": n, "shapes": " ".join("x".join(map(str, s)) for s in shapes),
           "chunks": " ".join("x".join(map(str, c)) for c in chunks), "tflop": fl / 1e12, "first_s": el,
           "time_s": el, "tflops": fl / el / 1e12, "per_gpu_tflops": fl / el / n / 1e12, "check_err": err}
    del r, v, t
    client.run(_free_pool)
    if not ok:
        raise SystemExit(f"big case: sampled blocks differ from the float64 reference (max rel. error {err:.2e})")
    return row


def run_cpu(args) -> list[dict]:
    import dask

    import gettpy.dask as gdask

    print("no GPU (or no dask_cuda): small CPU version on gettpy's CPU executor, Dask threaded scheduler with "
          "1 and 2 threads standing in for GPUs; these are not GPU numbers", flush=True)
    rows, base = [], {}
    for (name, subs, shapes, chunks), dt in [(c, dt) for c in cases(False, 2) for dt in args.dtypes]:
        xs = [_operand(s, c, DTYPES[dt], seed, 1.0 if seed else 0.1, False).persist(scheduler="sync")
              for seed, (s, c) in enumerate(zip(shapes, chunks, strict=True))]
        hx = [np.asarray(x) for x in xs]
        blk = [h[tuple(slice(0, e) for e in c)] for h, c in zip(hx, chunks, strict=True)]
        gettpy.einsum(subs, *blk)
        t0 = time.perf_counter()
        gettpy.einsum(subs, *blk)
        block_rate = _flops(subs, chunks) / (time.perf_counter() - t0)
        expr = gdask.einsum(subs, *xs)
        for workers in (1, 2):
            def run(expr=expr, workers=workers):
                t0 = time.perf_counter()
                expr.compute(scheduler="threads", num_workers=workers)
                return time.perf_counter() - t0

            first, med = _timed(run, args.reps)
            rows.append(_row(name, dt, workers, subs, shapes, chunks, first, med, block_rate, base.get((name, dt))))
            base.setdefault((name, dt), med)
        ref = np.einsum(subs, *[h.astype(np.float64) for h in hx])
        got = expr.compute(scheduler="threads")
        tol = 1e-4 if dt == "f32" else 1e-12
        mag = np.einsum(subs, *[np.abs(h).astype(np.float64) for h in hx])
        assert (np.abs(got - ref) <= tol * np.maximum(mag, 1)).all(), f"{name} {dt}: mismatch"
    if not args.no_big:
        # the out-of-core shape on the host: V in 8 blocks, each task's working set far below V
        nv, no = 32, 8
        shapes = [(nv,) * 4, (nv, nv, no, no)]
        sug = gdask.suggest_chunks("abcd,cdij->abij", shapes, np.float64, memory_bytes=nv ** 4 * 8 // 2,
                                   parallelism=8, min_out_block=1, min_k=1)
        v = _operand(shapes[0], sug.operands[0], np.float64, 11, 1.0, False)
        t = _operand(shapes[1], sug.operands[1], np.float64, 12, 0.1, False)
        r = gdask.einsum("abcd,cdij->abij", v, t)
        with dask.config.set(scheduler="threads"):
            err = _check_samples(r, v, t, lambda x: x)
        print(f"big (CPU stand-in): V {nv ** 4 * 8 / 1e6:.1f} MB in chunks {sug.operands[0]}, working set "
              f"{sug.working_set_bytes / 1e6:.1f} MB; sampled blocks max |err|/magnitude {err:.2e}", flush=True)
        if err >= 1e-12:
            raise SystemExit(f"big case: sampled blocks differ from the float64 reference ({err:.2e})")
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tccg.scale", description=__doc__.split("\n\n")[0])
    p.add_argument("--gpus", type=int, default=2, help="GPUs for the multi-GPU runs (default 2)")
    p.add_argument("--dtypes", default="f32,f64", help="comma-separated: f32, f64")
    p.add_argument("--reps", type=int, default=3, help="timed runs per case (median)")
    p.add_argument("--csv", help="write the rows to this CSV file")
    p.add_argument("--no-big", action="store_true", help="skip the contraction larger than one GPU")
    p.add_argument("--cpu", action="store_true", help="run the small CPU version even where a GPU is present")
    args = p.parse_args(argv)
    args.dtypes = [d for d in args.dtypes.split(",") if d]
    bad = [d for d in args.dtypes if d not in DTYPES]
    if bad:
        p.error(f"--dtypes: unknown {bad}; choose from {sorted(DTYPES)}")
    gpu = False
    if not args.cpu:
        try:
            import cupy

            gpu = cupy.cuda.runtime.getDeviceCount() > 0
            import dask_cuda  # noqa: F401
        except Exception as exc:  # noqa: BLE001 - no CuPy, no device or no dask_cuda: the CPU version
            print(f"(GPU version unavailable: {type(exc).__name__}: {exc})", file=sys.stderr)
            gpu = False
    rows = run_gpu(args) if gpu else run_cpu(args)
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
