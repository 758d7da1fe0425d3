"""gettpy.dask for contractions larger than a GPU, on the CPU: suggest_chunks' per-worker working set
(held shares, streamed block copies, the block contraction's planned workspace) against bounds worked out
by hand; operands streamed from host memory (blocks moved inside the tasks, lazily) against numpy; and
task_workers on synthetic task streams (which workers ran a graph's tasks, fused names included)."""
from __future__ import annotations

import importlib
import math
import threading

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
gdask = importlib.import_module("gettpy.dask")
errors = importlib.import_module("gettpy.errors")


# ------------------------------------------------------------------------------------------ suggest_chunks
# (subscripts, shapes, itemsize dtype, memory, parallelism, streamed); shapes on purpose in no benchmark
CASES = [
    ("ab,bc->ac", [(3000, 1200), (1200, 700)], np.float64, 120_000_000, 1, ()),
    ("ab,bc->ac", [(3000, 1200), (1200, 700)], np.float64, 12_000_000, 3, (0,)),
    ("xab,xbc->xac", [(6, 500, 300), (6, 300, 200)], np.float32, 4_000_000, 2, (0, 1)),
    ("pqrs,rsT->pqT", [(60, 50, 40, 30), (40, 30, 20)], np.float64, 30_000_000, 2, (0,)),
    ("ab,bc,cd->ad", [(900, 800), (800, 700), (700, 600)], np.float32, 9_000_000, 2, (0, 1, 2)),
]


def _by_hand(subs, shapes, item, chunk, parallelism, streamed):
    """(held bytes, least and most bytes a task adds) for the pairwise steps of opt_einsum's order: held =
    ceil(blocks / parallelism) blocks of each unstreamed operand and of each step's result; a task adds its
    streamed blocks' copies, its output block and the reduction's partials, and a workspace between none
    and one copy of each input block and of its output block."""
    import opt_einsum as oe

    ins, out = subs.split("->")
    terms = ins.split(",")
    ext = {m: e for t, s in zip(terms, shapes, strict=True) for m, e in zip(t, s, strict=True)}

    def blocks(t):
        return math.prod(-(-ext[m] // chunk[m]) for m in t)

    def size(t):
        return item * math.prod(chunk[m] for m in t)

    held = sum(-(-blocks(t) // parallelism) * size(t) for i, t in enumerate(terms) if i not in streamed)
    path, _ = oe.contract_path(subs, *[np.empty(s) for s in shapes], optimize="auto")
    slots = [(t, i in streamed) for i, t in enumerate(terms)]
    lo = hi = 0
    for j, pair in enumerate(path):
        picked = [slots[p] for p in sorted(pair)]
        for p in sorted(pair, reverse=True):
            slots.pop(p)
        if j == len(path) - 1:
            o = out
        else:
            keep = set(out).union(*(set(t) for t, _ in slots))
            o = "".join(m for m in dict.fromkeys("".join(t for t, _ in picked)) if m in keep)
        held += -(-blocks(o) // parallelism) * size(o)
        k = [m for m in dict.fromkeys("".join(t for t, _ in picked)) if m not in o]
        parts = blocks(k)
        fan = min(parts, 4) if parts > 1 else 0
        base = sum(size(t) for t, f in picked if f) + size(o) * (1 + fan)
        lo = max(lo, base)
        hi = max(hi, base + sum(size(t) for t, _ in picked) + size(o))
        slots.append((o, False))
    return held, lo, hi


@pytest.mark.parametrize("subs,shapes,dtype,memory,parallelism,streamed", CASES)
def test_working_set_counts_held_blocks_and_workspace(subs, shapes, dtype, memory, parallelism, streamed):
    s = gdask.suggest_chunks(subs, shapes, dtype, memory_bytes=memory, parallelism=parallelism,
                             streamed=streamed, min_out_block=1, min_k=1)
    chunk = dict(s.modes)
    item = np.dtype(dtype).itemsize
    held, lo, hi = _by_hand(subs, shapes, item, chunk, parallelism, streamed)
    assert s.resident_bytes == held
    assert held + lo <= s.working_set_bytes <= held + hi
    assert s.working_set_bytes <= 0.8 * memory
    assert s.output_blocks >= parallelism
    # the operands' chunks are the modes' chunks
    for t, c in zip(subs.split("->")[0].split(","), s.operands, strict=True):
        assert c == tuple(chunk[m] for m in t)


def test_workspace_is_the_planned_packs():
    # a float64 GEMM this large is planned with A's block packed: that copy is part of the working set
    from gettpy.plan.cache import cached_schedule
    from gettpy.plan.problem import ContractionProblem, TensorInfo

    s = gdask.suggest_chunks("ab,bc->ac", [(4000, 3000), (3000, 2000)], np.float64, memory_bytes=10**9)
    assert s.operands == ((4000, 3000), (3000, 2000))
    held = 8 * (4000 * 3000 + 3000 * 2000 + 4000 * 2000)
    problem = ContractionProblem(TensorInfo("A", ("a", "b"), (3000, 1), "f64"),
                                 TensorInfo("B", ("b", "c"), (2000, 1), "f64"), None,
                                 TensorInfo("D", ("a", "c"), (2000, 1), "f64"),
                                 (("a", 4000), ("b", 3000), ("c", 2000)))
    planned = cached_schedule(problem, "cupy").workspace_bytes
    assert 0 < planned <= held  # packs and workspaces: at most a copy of each block
    assert s.resident_bytes == held and s.workspace_bytes == planned
    assert s.working_set_bytes == held + planned + 8 * 4000 * 2000


def test_held_operand_larger_than_memory_needs_streaming():
    shapes = [(4000, 4000), (4000, 64)]  # A: 128 MB on a 100 MB device
    with pytest.raises(errors.ShapeError, match="stream"):
        gdask.suggest_chunks("ab,bc->ac", shapes, np.float64, memory_bytes=100_000_000, parallelism=1)
    s = gdask.suggest_chunks("ab,bc->ac", shapes, np.float64, memory_bytes=100_000_000, streamed=(0,))
    assert s.working_set_bytes <= 80_000_000 and s.operands[0] != (4000, 4000)
    # two workers each hold half of A's blocks: it fits without streaming once A is split
    s2 = gdask.suggest_chunks("ab,bc->ac", shapes, np.float64, memory_bytes=100_000_000, parallelism=2)
    assert s2.working_set_bytes <= 80_000_000 and s2.resident_bytes >= 128_000_000 // 2
    with pytest.raises(errors.OptionError, match="out of range"):
        gdask.suggest_chunks("ab,bc->ac", shapes, np.float64, memory_bytes=10**9, streamed=(2,))


# ------------------------------------------------------------------------------------------ streaming
class _Mover:
    """A stand-in for the move to the device: a copy, counted (only real blocks: not the empty probe)."""

    def __init__(self):
        self.shapes = []
        self.lock = threading.Lock()

    def __call__(self, x):
        if x.size:
            with self.lock:
                self.shapes.append(x.shape)
        return np.array(x)


def test_streamed_operand_matches_numpy_and_moves_blocks_lazily(rng):
    a, b, c = rng.uniform(-1, 1, (12, 10)), rng.uniform(-1, 1, (10, 8)), rng.uniform(-1, 1, (8, 6))
    A, B, C = da.from_array(a, chunks=(4, 5)), da.from_array(b, chunks=(5, 4)), da.from_array(c, chunks=(4, 3))
    mover = _Mover()
    r = gdask.einsum("ij,jk,kl->il", A, B, C, stream=[1], to_device=mover, optimize=["einsum_path", (0, 1), (0, 1)])
    assert mover.shapes == []  # nothing moved while the graph is built
    got = r.compute(scheduler="sync")
    np.testing.assert_allclose(got, a @ b @ c, rtol=1e-12, atol=1e-12)
    # A·B first: one task per (i block, k block, j block) = 3 x 2 x 2, each moving the B block it reads
    assert len(mover.shapes) == 12
    assert sorted(set(mover.shapes)) == [(5, 4)]
    n = len(mover.shapes)
    r[:4, :3].compute(scheduler="sync")  # one output block: only the tasks it needs move blocks
    assert 0 < len(mover.shapes) - n < 12


def test_streamed_operands_semiring_and_errors(rng):
    a, b = rng.uniform(-1, 1, (9, 7)), rng.uniform(-1, 1, (7, 5))
    A, B = da.from_array(a, chunks=(3, 4)), da.from_array(b, chunks=(4, 5))
    mover = _Mover()
    r = gdask.einsum("ij,jk->ik", A, B, stream=(0, -1), to_device=mover, semiring="max_plus")
    np.testing.assert_array_equal(r.compute(scheduler="threads"), (a[:, :, None] + b[None]).max(axis=1))
    assert len(mover.shapes) == 2 * 3 * 2  # two operands x (3 i blocks x 2 j blocks)
    with pytest.raises(errors.ArgumentError, match="out of range"):
        gdask.einsum("ij,jk->ik", A, B, stream=(2,), to_device=mover)
    with pytest.raises(errors.ArgumentError, match="callable"):
        gdask.einsum("ij,jk->ik", A, B, stream=(0,), to_device=3)


# ------------------------------------------------------------------------------------------ task_workers
def _stream(keys_workers, stringify=False):
    return [{"key": str(k) if stringify else k, "worker": w, "startstops": ()} for k, w in keys_workers]


@pytest.mark.parametrize("stringify", [False, True])
def test_task_workers_counts_fused_tasks_of_the_graph(stringify):
    a = da.ones((6, 4), chunks=(3, 2))
    b = da.ones((4, 5), chunks=(2, 5))
    r = gdask.einsum("ij,jk->ik", a, b).map_blocks(np.asarray)  # a later layer: fusion renames the tasks
    (opt,) = dask.optimize(r)
    keys = list(opt.__dask_graph__())
    assert not any("gettpy-einsum" in str(k) for k in keys)  # what made a name-based check find nothing
    two = [(k, "tcp://w0" if i % 2 else "tcp://w1") for i, k in enumerate(keys)]
    other = [(("unrelated-123", 0), "tcp://w2")]
    got = gdask.task_workers(_stream(two + other, stringify), r)
    assert got == {"tcp://w0": len(keys) // 2, "tcp://w1": len(keys) - len(keys) // 2}
    one = gdask.task_workers(_stream([(k, "tcp://w0") for k in keys] + other, stringify), r)
    assert one == {"tcp://w0": len(keys)}  # everything on one worker is seen as one worker
    assert gdask.task_workers(_stream(other, stringify), r) == {}
