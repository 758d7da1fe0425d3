"""GPU timing with host overhead excluded, and the machine's ceilings (copy bandwidth, GEMM peaks).

How a call is timed (`time_calls`):

1. every input set's call runs once eagerly (compiles kernels, fills memory pools), then a batch of
   eager calls estimates the time per call;
2. ``batch`` calls, rotating through the input sets (so that consecutive calls do not find their
   inputs in L2), are captured into one CUDA graph on a non-blocking stream;
3. the graph is replayed ``warmup`` times, then ``reps`` times, each replay bracketed by CUDA events;
   the result is the median over the reps of (replay time / batch).

If capture fails (a library synchronises or allocates in a way capture forbids) the same batch runs as
back-to-back eager launches between the events instead; `how` says which ('graph' or 'events').
torch calls are captured with torch's own graph API (its caching allocator needs to know).

`interleaved_ms` times several libraries' prepared batches (`Runner`s) in turn, one replay each per round, so that
they run through the same stretch of the GPU's clock history (`python -m tccg --interleave`).
"""
from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gettpy.graphs import event_timer, prepare, replay_ms, timed_median

WARMUP = 3
REPS = 20
TARGET_MS = 2.0  # aim for graphs of about this length
MAX_BATCH = 256


def choose_batch(est_ms: float, n_sets: int, target_ms: float = TARGET_MS, max_batch: int = MAX_BATCH) -> int:
    """Calls per graph: about target_ms of work, at least one per input set, a multiple of n_sets."""
    n_sets = max(1, n_sets)
    want = 1 if not (est_ms > 0 and math.isfinite(est_ms)) else math.ceil(target_ms / est_ms)
    want = max(n_sets, min(max_batch, want))
    return n_sets * math.ceil(want / n_sets)


def n_input_sets(bytes_per_set: int, l2_bytes: int, max_sets: int = 8, budget_bytes: int | None = None) -> int:
    """How many input sets to rotate so that a set is evicted from L2 before it comes back.

    At least 2, enough that the other sets together exceed 2x L2, at most `max_sets`, and within
    `budget_bytes` of device memory when given.
    """
    if bytes_per_set <= 0:
        return 2
    n = max(2, 1 + math.ceil(2 * l2_bytes / bytes_per_set))
    n = min(n, max_sets)
    if budget_bytes is not None:
        n = max(1, min(n, budget_bytes // bytes_per_set))
    return n


@dataclass(frozen=True)
class Runner:
    """A library's calls made ready to time in batches of `batch` (one CUDA-graph replay, or eager launches:
    `how`); `once()` runs one batch between CUDA events and returns ms per call."""

    how: str
    batch: int
    once: Callable[[], float]


def cupy_runner(calls: Sequence[Callable[[], object]], target_ms: float = TARGET_MS) -> Runner:
    """`calls` (one per input set, CuPy-stream work) captured as a batch of about target_ms (gettpy.graphs.prepare),
    timed as gettpy.graphs.replay_ms times it."""
    launch, how, batch, stream = prepare(calls, lambda est: choose_batch(est, len(calls), target_ms))
    return Runner(how, batch, event_timer(launch, batch, stream))


def torch_runner(calls: Sequence[Callable[[], object]], target_ms: float = TARGET_MS) -> Runner:
    """Like cupy_runner for torch work, captured with torch.cuda.graph (private memory pool)."""
    import torch

    n = len(calls)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for f in calls:
            f()
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        for f in calls:
            f()
        e1.record()
        e1.synchronize()
        est = e0.elapsed_time(e1) / n
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    batch = choose_batch(est, n, target_ms)

    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph):
            for i in range(batch):
                calls[i % n]()
        how = "graph"

        def launch():
            graph.replay()
    except Exception:  # noqa: BLE001
        torch.cuda.synchronize()
        graph = None
        how = "events"

        def launch():
            for i in range(batch):
                calls[i % n]()

    def once() -> float:
        e0.record()
        launch()
        e1.record()
        e1.synchronize()
        return e0.elapsed_time(e1) / batch

    return Runner(how, batch, once)


def median_ms(runner: Runner, warmup: int = WARMUP, reps: int = REPS) -> float:
    """Median ms per call of `reps` timed launches of `runner` after `warmup` (torch's; CuPy work goes through
    gettpy.graphs.replay_ms)."""
    return timed_median(runner.once, reps, warmup)


def interleaved_ms(runners: Sequence[Runner], warmup: int = WARMUP, reps: int = REPS) -> list[float]:
    """Median ms per call of each of `runners`, their launches taken in turn (one each per round, `reps` rounds
    after `warmup`): each library then runs through the same stretch of the GPU's clock and power history, which
    one library timed after another does not (an H100's clocks drop after heavy work and recover slowly)."""
    for _ in range(warmup):
        for r in runners:
            r.once()
    times: list[list[float]] = [[] for _ in runners]
    for _ in range(reps):
        for t, r in zip(times, runners, strict=True):
            t.append(r.once())
    return [statistics.median(t) for t in times]


def time_cupy(calls: Sequence[Callable[[], object]], warmup: int = WARMUP, reps: int = REPS,
              target_ms: float = TARGET_MS) -> tuple[float, str, int]:
    """Median ms per call of `calls` (one per input set, cupy-stream work); returns (ms, how, batch)."""
    return replay_ms(calls, lambda est: choose_batch(est, len(calls), target_ms), reps, warmup)


def time_torch(calls: Sequence[Callable[[], object]], warmup: int = WARMUP, reps: int = REPS,
               target_ms: float = TARGET_MS) -> tuple[float, str, int]:
    """Like time_cupy for torch work, captured with torch.cuda.graph (private memory pool)."""
    r = torch_runner(calls, target_ms)
    return median_ms(r, warmup, reps), r.how, r.batch


# -- ceilings -------------------------------------------------------------------------------------------

_COPY16 = r"""
extern "C" __global__ void tccg_copy16(const int4* __restrict__ a, int4* __restrict__ b, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += stride) b[i] = a[i];
}
"""


def copy_bandwidth(nbytes: int = 1 << 30, reps: int = 10) -> float:
    """Device copy bandwidth in B/s: (bytes read + bytes written) / time of a large D2D copy; the best
    of cudaMemcpyAsync, cupy.copyto and a 16-byte-vector copy kernel, each the median of `reps`."""
    import cupy

    a = cupy.random.random(nbytes // 4, dtype=cupy.float32)
    b = cupy.empty_like(a)
    rt = cupy.cuda.runtime
    n16 = nbytes // 16
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    kern = cupy.RawKernel(_COPY16, "tccg_copy16")
    kinds = [lambda: rt.memcpyAsync(b.data.ptr, a.data.ptr, a.nbytes, rt.memcpyDeviceToDevice,
                                    cupy.cuda.get_current_stream().ptr),
             lambda: cupy.copyto(b, a),
             lambda: kern((min(sms * 16, -(-n16 // 256)),), (256,), (a, b, cupy.int64(n16)))]
    best = math.inf
    for f in kinds:
        try:
            ms, _, _ = time_cupy([f], warmup=2, reps=reps, target_ms=0)
        except Exception:  # noqa: BLE001 - a variant that cannot run just does not count
            continue
        best = min(best, ms)
    return 2 * nbytes / (best * 1e-3)


def gemm_peak(kind: str, n: int = 8192, reps: int = 5) -> float:
    """FLOP/s of an n x n x n GEMM: cupy.matmul for f16/f32/f64, torch.matmul for bf16."""
    if kind == "bf16":
        import torch

        a = torch.rand(n, n, device="cuda", dtype=torch.bfloat16)
        b = torch.rand(n, n, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
        ms, _, _ = time_torch([lambda: torch.matmul(a, b, out=c)], warmup=2, reps=reps, target_ms=0)
    else:
        import cupy

        dt = {"f16": cupy.float16, "f32": cupy.float32, "f64": cupy.float64}[kind]
        a = cupy.random.random((n, n), dtype=cupy.float32).astype(dt)
        b = cupy.random.random((n, n), dtype=cupy.float32).astype(dt)
        c = cupy.empty((n, n), dtype=dt)
        ms, _, _ = time_cupy([lambda: cupy.matmul(a, b, out=c)], warmup=2, reps=reps, target_ms=0)
    return 2.0 * n**3 / (ms * 1e-3)


def measure_ceilings(peak_kinds: Sequence[str], log=print) -> dict:
    """{'bw': B/s, 'peak': {kind: FLOP/s}} for the GEMM kinds needed; bf16 falls back to f16's peak
    when torch is missing."""
    out = {"bw": copy_bandwidth(), "peak": {}}
    log(f"ceiling: device copy bandwidth {out['bw'] / 1e12:.3f} TB/s (read + write)")
    for k in dict.fromkeys(peak_kinds):
        try:
            out["peak"][k] = gemm_peak(k)
        except Exception as e:  # noqa: BLE001
            if k == "bf16":
                out["peak"][k] = out["peak"].get("f16") or gemm_peak("f16")
                log(f"ceiling: bf16 GEMM not measurable ({type(e).__name__}: {e}); using the fp16 GEMM peak")
                continue
            raise
        log(f"ceiling: {k} GEMM 8192^3 {out['peak'][k] / 1e12:.1f} TFLOP/s")
    return out
