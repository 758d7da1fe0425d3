"""gettpy.dask on the CPU: numpy-chunked Dask arrays, synchronous and threaded schedulers, against numpy.einsum
in float64 (and enumeration for semirings)."""
from __future__ import annotations

import importlib
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
gdask = importlib.import_module("gettpy.dask")

from gettpy.errors import DtypeError, GettpyError, ShapeError, SubscriptError  # noqa: E402

SCHEDULERS = ("sync", "threads")


def _rand(rng, shape, dtype=np.float64):
    return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)


def _close(got, ref, mag, rtol=1e-12):
    """|got - ref| within rtol of the size of the terms summed (mag: einsum of the absolute values)."""
    got, ref, mag = np.asarray(got, dtype=np.float64), np.asarray(ref), np.asarray(mag)
    assert got.shape == ref.shape, f"shape {got.shape} != {ref.shape}"
    err = np.abs(got - ref)
    bound = rtol * np.maximum(mag, 1.0)
    assert (err <= bound).all(), f"max error {err.max()} (bound {bound.max()}) at {np.argwhere(err > bound)[:3]}"


# subscripts, operand shapes, operand chunks: odd chunk sizes, split and unsplit contracted modes, 1-3
# operands, broadcasting (extent 1 against a larger extent), ellipses, diagonals, batch modes, outer products
CASES = [
    ("ij,jk->ik", [(7, 9), (9, 5)], [(3, 4), (4, 2)]),
    ("ij,jk->ik", [(13, 11), (11, 6)], [(13, 11), (11, 6)]),  # one chunk each
    ("ij,jk", [(10, 17), (17, 3)], [(4, 5), (5, 3)]),  # implicit output
    ("bij,bjk->bik", [(5, 6, 7), (5, 7, 4)], [(2, 4, 3), (2, 3, 4)]),  # batch mode split
    ("abcd,cdef->abef", [(4, 5, 6, 7), (6, 7, 3, 2)], [(3, 2, 4, 5), (4, 5, 3, 1)]),  # two split contracted
    ("ij,kl->ijkl", [(4, 5), (3, 2)], [(3, 2), (2, 1)]),  # outer product
    ("ijk->ik", [(6, 9, 5)], [(4, 2, 3)]),  # one operand, split reduced mode
    ("ij->ji", [(7, 5)], [(3, 2)]),  # permutation only
    ("ii->i", [(7, 7)], [(3, 3)]),  # diagonal
    ("ii", [(8, 8)], [(3, 3)]),  # trace
    ("ij,ij->", [(9, 6), (9, 6)], [(4, 4), (4, 4)]),  # full reduction
    ("ij,jk->ik", [(6, 1), (5, 4)], [(4, 1), (2, 3)]),  # broadcasting: j has extent 1 in A
    ("bij,jk->bik", [(1, 5, 6), (6, 3)], [(1, 2, 4), (4, 3)]),
    ("...ij,...jk->...ik", [(3, 4, 5), (1, 5, 2)], [(2, 3, 2), (1, 2, 2)]),  # ellipsis with broadcast
    ("ij,jk,kl->il", [(7, 9), (9, 5), (5, 6)], [(3, 4), (4, 2), (2, 5)]),  # three operands
    ("ab,bc,cd,de->ae", [(5, 6), (6, 7), (7, 4), (4, 3)], [(2, 4), (4, 3), (3, 3), (3, 2)]),  # four
    ("ijk,jl,kl->il", [(4, 5, 6), (5, 3), (6, 3)], [(3, 2, 5), (2, 2), (5, 2)]),  # hyper-edge l
]


@pytest.mark.parametrize("scheduler", SCHEDULERS)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_numpy(case, scheduler, rng):
    subs, shapes, chunks = case
    xs = [_rand(rng, s) for s in shapes]
    ds = [da.from_array(x, chunks=c) for x, c in zip(xs, chunks, strict=True)]
    r = gdask.einsum(subs, *ds)
    assert isinstance(r, da.Array)
    with dask.config.set(scheduler=scheduler):
        got = r.compute()
    ref = np.einsum(subs, *xs)
    _close(got, ref, np.einsum(subs, *[np.abs(x) for x in xs]))
    assert got.dtype == np.float64


def test_sublist_form_and_plain_arrays(rng):
    a, b = _rand(rng, (6, 7)), _rand(rng, (7, 5))
    r = gdask.einsum(da.from_array(a, chunks=(4, 3)), [0, 1], b, [1, 2], [2, 0])  # b: one chunk
    _close(r.compute(scheduler="sync"), np.einsum(a, [0, 1], b, [1, 2], [2, 0]), (np.abs(a) @ np.abs(b)).T)


def test_output_chunks_follow_operands(rng):
    a = da.from_array(_rand(rng, (10, 12)), chunks=(3, 5))
    b = da.from_array(_rand(rng, (12, 8)), chunks=(5, 6))
    r = gdask.einsum("ij,jk->ki", a, b)
    assert r.chunks == ((6, 2), (3, 3, 3, 1))


def test_ops_on_inputs_and_output_after_reduction(rng):
    a, b = _rand(rng, (6, 20)), _rand(rng, (20, 5))
    for chunks in ((6, 20), (3, 7)):  # contracted mode whole (op_out fused) and split (op_out after the sum)
        da_, db_ = da.from_array(a, chunks=chunks), da.from_array(b, chunks=(chunks[1], 5))
        r = gdask.einsum("ij,jk->ik", da_, db_, ops=["abs", "neg"], op_out=("leaky_relu", 0.25))
        s = np.abs(a) @ -b
        ref = np.where(s > 0, s, 0.25 * s)
        _close(r.compute(scheduler="sync"), ref, np.abs(a) @ np.abs(b))
        # relu of the whole sum, not of each chunk's partial sum
        r = gdask.einsum("ij,jk->ik", da_, db_, op_out="relu")
        _close(r.compute(scheduler="threads"), np.maximum(a @ b, 0), np.abs(a) @ np.abs(b))


def test_ops_three_operands_apply_to_originals(rng):
    a, b, c = _rand(rng, (5, 6)), _rand(rng, (6, 7)), _rand(rng, (7, 4))
    ds = [da.from_array(x, chunks=3) for x in (a, b, c)]
    r = gdask.einsum("ij,jk,kl->il", *ds, ops=[None, "square", "abs"], op_out="neg")
    ref = -(a @ np.square(b) @ np.abs(c))
    _close(r.compute(scheduler="sync"), ref, np.abs(a) @ np.square(b) @ np.abs(c))


def _max_plus(a, b):
    return (a[:, :, None] + b[None, :, :]).max(axis=1)


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_semiring_reduces_with_its_own_add(rng, scheduler):
    a, b = _rand(rng, (7, 23)), _rand(rng, (23, 6))
    r = gdask.einsum("ij,jk->ik", da.from_array(a, chunks=(4, 5)), da.from_array(b, chunks=(5, 4)),
                     semiring="max_plus", split_every=2)
    with dask.config.set(scheduler=scheduler):
        got = r.compute()
    np.testing.assert_array_equal(got, _max_plus(a, b))  # max and + of float64: exact
    r = gdask.einsum("ij,jk->ik", da.from_array(a, chunks=(4, 5)), da.from_array(b, chunks=(5, 4)),
                     semiring="min_plus", op_out="neg")
    np.testing.assert_array_equal(r.compute(scheduler="sync"), -(a[:, :, None] + b[None]).min(axis=1))


def test_semiring_three_operands(rng):
    a, b, c = _rand(rng, (5, 8)), _rand(rng, (8, 9)), _rand(rng, (9, 4))
    ds = [da.from_array(x, chunks=3) for x in (a, b, c)]
    got = gdask.einsum("ij,jk,kl->il", *ds, semiring="max_plus").compute(scheduler="sync")
    ref = _max_plus(_max_plus(a, b), c)  # (max, +) is associative: any pairwise order gives the same
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-14)


def test_dtypes(rng):
    a, b = _rand(rng, (9, 14), np.float32), _rand(rng, (14, 5), np.float32)
    da_, db_ = da.from_array(a, chunks=(4, 5)), da.from_array(b, chunks=(5, 3))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    r = gdask.einsum("ij,jk->ik", da_, db_, dtype=np.float64)
    assert r.dtype == np.float64
    _close(r.compute(scheduler="sync"), ref, np.abs(a) @ np.abs(b), rtol=1e-12)
    r = gdask.einsum("ij,jk->ik", da_, db_)
    assert r.dtype == np.float32 and r.compute(scheduler="sync").dtype == np.float32
    _close(r.compute(scheduler="sync"), ref, np.abs(a) @ np.abs(b), rtol=1e-5)
    h, g = a.astype(np.float16), b.astype(np.float16)
    refh = h.astype(np.float64) @ g.astype(np.float64)
    dh, dg = da.from_array(h, chunks=(4, 5)), da.from_array(g, chunks=(5, 3))
    r = gdask.einsum("ij,jk->ik", dh, dg, dtype=np.float32)  # half inputs, float32 result
    assert r.dtype == np.float32
    _close(r.compute(scheduler="sync"), refh, np.abs(refh) + 1, rtol=1e-5)
    r = gdask.einsum("ij,jk->ik", dh, dg)  # half result: partials summed in float32, rounded once
    assert r.compute(scheduler="sync").dtype == np.float16
    _close(r.compute(scheduler="sync"), refh, np.abs(refh) + 1, rtol=2e-3)
    with pytest.raises(DtypeError, match="operand 0"):
        gdask.einsum("ij,jk->ik", da.from_array(a.astype(np.float64), chunks=4), db_, dtype=np.float32)
    r = gdask.einsum("ij,jk->ik", da.from_array(a.astype(np.float64), chunks=4), db_, dtype=np.float32,
                     casting="same_kind")
    assert r.dtype == np.float32


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.bool_])
def test_exact_types_on_the_cpu(rng, dtype):
    """Integer and bool operands (gettpy computes them on the CPU in their own kind, as numpy): the partial
    results of a split contracted mode are summed in the same type (for bool, + is or)."""
    a, b = rng.integers(-5, 5, (7, 19)), rng.integers(-5, 5, (19, 6))
    if dtype is np.bool_:
        a, b = a > 0, b > 0
    a, b = a.astype(dtype), b.astype(dtype)
    r = gdask.einsum("ij,jk->ik", da.from_array(a, chunks=(3, 4)), da.from_array(b, chunks=(4, 5)))
    ref = np.einsum("ij,jk->ik", a, b)
    got = r.compute(scheduler="sync")
    assert r.dtype == ref.dtype and got.dtype == ref.dtype
    np.testing.assert_array_equal(got, ref)


def test_mismatched_chunks_rechunk_to_largest_operand(rng):
    a, b = _rand(rng, (6, 30)), _rand(rng, (30, 4))
    da_ = da.from_array(a, chunks=(3, 7))  # the larger operand: its chunks of j win
    db_ = da.from_array(b, chunks=(11, 4))
    r = gdask.einsum("ij,jk->ik", da_, db_)
    _close(r.compute(scheduler="sync"), a @ b, np.abs(a) @ np.abs(b))
    # A's chunks of j were kept (5 blocks of j; B's would give 3): 2 x 5 block tasks
    blk = [k for k in r.dask.layers if k.startswith("gettpy-einsum")]
    assert len(blk) == 1 and len(r.dask.layers[blk[0]]) == 2 * 5
    with pytest.raises(ShapeError, match=r"mode 'j'.*operand 0.*\(7, 7, 7, 7, 2\).*operand 1.*\(11, 11, 8\)"):
        gdask.einsum("ij,jk->ik", da_, db_, rechunk=False)


def test_out_argument(rng, tmp_path):
    a, b = _rand(rng, (8, 10)), _rand(rng, (10, 6))
    da_, db_ = da.from_array(a, chunks=(3, 4)), da.from_array(b, chunks=(4, 5))
    out = np.zeros((8, 6))
    got = gdask.einsum("ij,jk->ik", da_, db_, out=out)
    assert got is out
    _close(out, a @ b, np.abs(a) @ np.abs(b))
    mm = np.lib.format.open_memmap(tmp_path / "r.npy", mode="w+", dtype=np.float64, shape=(6, 8))
    gdask.einsum("ij,jk->ki", da_, db_, out=mm)  # an out-of-core target, written block by block
    mm.flush()
    _close(np.load(tmp_path / "r.npy"), (a @ b).T, (np.abs(a) @ np.abs(b)).T)
    with pytest.raises(ShapeError, match="out has shape"):
        gdask.einsum("ij,jk->ik", da_, db_, out=np.zeros((6, 8)))
    with pytest.raises(DtypeError, match="out has dtype"):
        gdask.einsum("ij,jk->ik", da_, db_, out=np.zeros((8, 6), dtype=np.float32))
    with pytest.raises(GettpyError, match="immutable"):
        gdask.einsum("ij,jk->ik", da_, db_, out=da.zeros((8, 6)))


def test_errors_name_the_fault(rng):
    a = da.from_array(_rand(rng, (4, 5)), chunks=2)
    with pytest.raises(ShapeError, match="mode 'j'"):
        gdask.einsum("ij,jk->ik", a, da.from_array(_rand(rng, (6, 3)), chunks=2))
    with pytest.raises(SubscriptError):
        gdask.einsum("ij,jk->ik", a)
    with pytest.raises(TypeError, match="unexpected keyword"):
        gdask.einsum("ij->ji", a, foo=1)
    with pytest.raises(GettpyError, match="unknown semiring"):
        gdask.einsum("ij->i", a, semiring="max_max")
    with pytest.raises(GettpyError, match="operand 0"):
        gdask.einsum("ij->i", [[1.0]])
    with pytest.raises(GettpyError, match="ops has 1 entries"):
        gdask.einsum("ij,jk->ik", a, a.T, ops=["abs"])
    x = da.from_array(np.arange(10.0), chunks=3)
    with pytest.raises(ShapeError, match="operand 1 has unknown chunk sizes"):
        gdask.einsum("i,i->", x, x[x > 3])


def test_zero_extents(rng):
    a, b = da.zeros((3, 0), chunks=2), da.zeros((0, 4), chunks=2)
    np.testing.assert_array_equal(gdask.einsum("ij,jk->ik", a, b).compute(scheduler="sync"), np.zeros((3, 4)))
    # an empty max-plus sum is the semiring's zero, -inf
    np.testing.assert_array_equal(gdask.einsum("ij,jk->ik", a, b, semiring="max_plus").compute(scheduler="sync"),
                                  np.full((3, 4), -np.inf))
    assert gdask.einsum("ij,jk->ij", a, b).compute(scheduler="sync").shape == (3, 0)


def test_one_plan_per_distinct_block_problem(rng):
    """Blocks of one shape and layout share one plan: gettpy's caches plan each distinct block problem once."""
    from gettpy.plan.cache import clear_plan_cache, plan_cache_info

    ge = importlib.import_module("gettpy.einsum")
    a, b = _rand(rng, (8, 12)), _rand(rng, (12, 10))
    # contiguous blocks (as Dask's own creation functions and transfers make them), all of one shape
    da_ = da.from_array(a, chunks=(4, 4)).map_blocks(np.ascontiguousarray)
    db_ = da.from_array(b, chunks=(4, 5)).map_blocks(np.ascontiguousarray)
    clear_plan_cache()
    ge.clear_program_cache()
    got = gdask.einsum("ij,jk->ik", da_, db_).compute(scheduler="threads")  # 2 x 3 x 2 = 12 block tasks
    _close(got, a @ b, np.abs(a) @ np.abs(b))
    assert plan_cache_info().misses == 1
    # edge blocks of another shape: one more plan per distinct block problem (here 2 x 2 shapes)
    da_ = da.from_array(_rand(rng, (9, 12)), chunks=(4, 8)).map_blocks(np.ascontiguousarray)
    clear_plan_cache()
    ge.clear_program_cache()
    gdask.einsum("ij,jk->ik", da_, db_.rechunk((8, 5))).compute(scheduler="sync")
    assert plan_cache_info().misses == 4  # i blocks {4, 1} x j blocks {8, 4}


def test_out_of_core_shaped_tree_reduction(rng):
    """Many blocks along the contracted mode, each far smaller than the operands, reduced two at a time:
    no task ever sees more than two partial results or a block larger than the chunks."""
    a, b = _rand(rng, (24, 1536)), _rand(rng, (1536, 20))
    da_, db_ = da.from_array(a, chunks=(8, 64)), da.from_array(b, chunks=(64, 10))
    r = gdask.einsum("ij,jk->ik", da_, db_, split_every=2)
    assert r.chunks == ((8, 8, 8), (10, 10))
    assert len(r.dask) > 3 * 2 * 24 * 2  # the blockwise tasks and a binary tree per output block
    with dask.config.set(scheduler="threads"):
        got = r.compute()
    _close(got, a @ b, np.abs(a) @ np.abs(b))


def test_distributed_local_cluster(rng):
    distributed = pytest.importorskip("distributed")
    a, b, c = _rand(rng, (9, 11)), _rand(rng, (11, 7)), _rand(rng, (7, 5))
    ds = [da.from_array(x, chunks=4) for x in (a, b, c)]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        got = gdask.einsum("ij,jk,kl->il", *ds).compute()
        out = np.zeros((9, 5))
        gdask.einsum("ij,jk,kl->il", *ds, out=out)  # gathered to the client, then copied in
    ref = a @ b @ c
    mag = np.abs(a) @ np.abs(b) @ np.abs(c)
    _close(got, ref, mag)
    _close(out, ref, mag)


# ------------------------------------------------------------------------------------------ suggest_chunks
def test_suggest_whole_when_it_fits_and_split_for_parallelism():
    s = gdask.suggest_chunks("ij,jk->ik", [(4096, 4096), (4096, 4096)], np.float64, memory_bytes=2**30)
    # working set: A + B + C held, the block's planned workspace and its output: 640 MiB <= 0.8 GiB
    assert s.operands == ((4096, 4096), (4096, 4096)) and s.output_blocks == 1
    assert s.resident_bytes == 3 * 4096 * 4096 * 8 and s.workspace_bytes <= 3 * 4096 * 4096 * 8
    assert s.working_set_bytes == 4 * 4096 * 4096 * 8 + s.workspace_bytes
    s = gdask.suggest_chunks("ij,jk->ik", [(4096, 4096), (4096, 4096)], np.float64, memory_bytes=2**30,
                             parallelism=2)
    assert s.output_blocks == 2 and s.reduction_blocks == 1
    assert sorted(s.output) == [2048, 4096]  # one output mode halved, nothing contracted split


def test_suggest_splits_contracted_mode_only_for_memory():
    shapes = [(512, 65536), (65536, 512)]  # 128 MiB each: streamed from host to a 64 MiB device
    s = gdask.suggest_chunks("ij,jk->ik", shapes, np.float32, memory_bytes=64 * 2**20, streamed=(0, 1))
    budget = 0.8 * 64 * 2**20
    assert s.working_set_bytes <= budget
    (ci, cj), (cj2, ck) = s.operands
    assert cj == cj2 < 65536 and s.reduction_blocks == -(-65536 // cj) > 1
    # an output block of 512 x 512 is below one wave of tiles: the output modes are not split
    assert (ci, ck) == (512, 512) and s.output_blocks == 1
    # the working set, recomputed by hand: C held; the A and B blocks' device copies, the block's planned
    # workspace (at most a copy of each block) and C's block x (1 + fan-in of the tree)
    fan = min(s.reduction_blocks, 4)
    assert s.resident_bytes == 4 * 512 * 512 and s.workspace_bytes <= 4 * (512 * cj + cj * 512 + 512 * 512)
    assert s.working_set_bytes == (4 * 512 * 512 + 4 * (512 * cj + cj * 512) + s.workspace_bytes
                                   + 4 * 512 * 512 * (1 + fan))
    # parallelism alone never splits a contracted mode
    s = gdask.suggest_chunks("ij,jk->ik", shapes, np.float32, memory_bytes=2**34, parallelism=4, streamed=(0, 1))
    assert s.reduction_blocks == 1


def test_suggest_three_operands_and_broadcast_and_errors():
    s = gdask.suggest_chunks("ab,bc,cd->ad", [(3000, 1), (2000, 3000), (3000, 1000)], np.float64,
                             memory_bytes=2**27, headroom=0.5, streamed=(1, 2))
    assert s.working_set_bytes <= 2**26
    assert s.operands[0][1] == 1  # the broadcast dimension keeps extent 1
    with pytest.raises(GettpyError, match="does not fit"):
        gdask.suggest_chunks("ij,jk->ik", [(64, 64), (64, 64)], np.float64, memory_bytes=50)


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_suggested_chunks_run_correctly(rng, scheduler):
    subs, shapes = "abc,cbd->ad", [(40, 24, 90), (90, 24, 30)]
    s = gdask.suggest_chunks(subs, shapes, np.float64, memory_bytes=400_000, parallelism=2, min_out_block=1,
                             min_k=1, streamed=(0, 1))  # the operands (1.2 MB) stay on the host
    assert s.output_blocks >= 2 and s.working_set_bytes <= 0.8 * 400_000
    xs = [_rand(rng, sh) for sh in shapes]
    ds = [da.from_array(x, chunks=c) for x, c in zip(xs, s.operands, strict=True)]
    with dask.config.set(scheduler=scheduler):
        got = gdask.einsum(subs, *ds, split_every=4, stream=(0, 1), to_device=np.array).compute()
    _close(got, np.einsum(subs, *xs), np.einsum(subs, *[np.abs(x) for x in xs]))


def test_import_gettpy_does_not_import_dask():
    code = "import sys, gettpy; sys.exit(1 if any(m == 'dask' or m.startswith('dask.') for m in sys.modules) else 0)"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    assert subprocess.run([sys.executable, "-c", code], env=env, cwd=root).returncode == 0


# ------------------------------------------------------------------------------------------ random cases
@st.composite
def _random_contraction(draw):
    """1-3 operands over modes a-e, extents 1-6 (1 broadcasts or is a real extent), each operand with its own
    random chunks (so shared modes are often chunked differently), an explicit output of distinct modes."""
    ext = {m: draw(st.integers(1, 6)) for m in "abcde"}
    n = draw(st.integers(1, 3))
    terms = [draw(st.lists(st.sampled_from("abcde"), min_size=1, max_size=3, unique=True)) for _ in range(n)]
    used = sorted(set().union(*terms))
    out = draw(st.permutations(used).map(lambda p: p[:draw(st.integers(0, len(p)))]))
    shapes = [tuple(ext[m] if draw(st.integers(0, 4)) else 1 for m in t) for t in terms]
    chunks = [tuple(draw(st.integers(1, max(e, 1))) for e in s) for s in shapes]
    return ",".join("".join(t) for t in terms) + "->" + "".join(out), shapes, chunks


@settings(max_examples=40, deadline=None, derandomize=True)
@given(_random_contraction())
def test_random_contractions_match_numpy(case):
    subs, shapes, chunks = case
    rng = np.random.default_rng(len(subs))
    xs = [_rand(rng, s) for s in shapes]
    got = gdask.einsum(subs, *[da.from_array(x, chunks=c) for x, c in zip(xs, chunks, strict=True)],
                       split_every=2).compute(scheduler="sync")
    _close(got, np.einsum(subs, *xs), np.einsum(subs, *[np.abs(x) for x in xs]))


def test_custom_ops_keep_one_instance_per_worker_process():
    """A distributed worker unpickles every task's arguments anew; a custom op (part of plan keys through
    its twin's identity) must come back as one instance per process, or every task is planned again."""
    cloudpickle = pytest.importorskip("cloudpickle")
    from gettpy import ops

    def twin(s):
        return lambda x: s * x

    sq = ops.custom("(T(2) * x)", numpy=twin(2.0))
    arith = gdask._arith([sq, ops.identity], None, None)
    t1, t2 = (cloudpickle.loads(cloudpickle.dumps(arith)) for _ in range(2))  # two tasks' arguments
    assert t1.ops[0] != t2.ops[0]  # distinct twins: distinct plan keys, unless interned
    assert gdask._interned(t1) is gdask._interned(t2)
    # a twin that behaves differently is another op: never interned to the first
    other = gdask._arith([ops.custom("(T(2) * x)", numpy=twin(3.0)), ops.identity], None, None)
    assert other.token != arith.token
    assert gdask._interned(cloudpickle.loads(cloudpickle.dumps(other))).ops[0].numpy(1.0) == 3.0
    # built-in ops and semirings compare by name: nothing to intern
    assert gdask._arith([ops.relu, ops.leaky_relu(0.2)], ops.neg, ops.max_plus).token is None
    assert gdask._arith([], None, ops.semiring("(a > b ? a : b)", "(x < y ? x : y)", -np.inf, np.inf,
                                               np.maximum, np.minimum)).token is not None
