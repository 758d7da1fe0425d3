"""einsum over Dask arrays: Dask schedules the blocks, gettpy contracts each one.

    >>> import dask.array as da, numpy as np
    >>> import gettpy.dask
    >>> a = da.ones((6, 4), chunks=(3, 2)); b = da.ones((4, 5), chunks=(2, 5))
    >>> float(gettpy.dask.einsum("ij,jk->ik", a, b).sum().compute())
    120.0

A contraction of Dask arrays becomes one ``dask.array.blockwise`` layer per binary contraction (opt_einsum's
pairwise order for three or more operands), each task a ``gettpy.einsum`` on one block of every operand.
A contracted mode split into several chunks leaves one partial result per chunk; those are combined by
Dask's own tree reduction (``Array.sum``, or ``dask.array.reduction`` with the semiring's ⊕), so the graph
is Dask's throughout: any scheduler runs it (synchronous, threads, ``distributed``, ``dask_cuda``).
numpy-chunked arrays run on gettpy's CPU executor, CuPy-chunked arrays on the GPU of the worker that holds
the block. Every block of one shape and layout reuses one plan (gettpy's plan and program caches).

This module imports Dask; ``import gettpy`` does not (install the ``dask`` extra to use it).
"""
from __future__ import annotations

import ast
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import partial

import numpy as np

try:
    import dask
    import dask.array as da
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("gettpy.dask needs Dask: pip install 'gettpy[dask]' (dask[array])") from exc

from .dtypes import ITEMSIZE, TF32_MODES, check_gpu, numpy_dtype, resolve, short_name, user_dtype
from .einsum import _check_path, _explicit_steps, _ops_for, _resolve_extents, pairwise_path
from .einsum import einsum as _einsum
from .errors import ArgumentError, DtypeError, GettpyError, OptionError, PathError, ShapeError, SubscriptError
from .ops import _SEMIRINGS, as_op, as_semiring, identity
from .semantics import check_casting, check_count, check_optimize, check_order
from .subscripts import LETTERS, parse

__all__ = ["einsum", "suggest_chunks", "ChunkSuggestion", "task_workers"]

_NUMPY_OPTIONS = ("order", "casting")
_HALF = ("f16", "bf16")


# ------------------------------------------------------------------------------------------ block tasks
def _unwrap(x):
    """A block from blockwise: a contracted mode that is not split reaches the task as a list of one block
    (per such mode); unwrap it without copying."""
    while isinstance(x, list):
        if len(x) != 1:  # pragma: no cover - the split contracted modes are output indices of the layer
            raise GettpyError(f"internal: a block task received {len(x)} blocks of one contracted mode")
        x = x[0]
    return x


@dataclass(frozen=True, slots=True)
class _Arith:
    """What every task of one layer applies: the ops of its operands, op_out, the semiring. `token` (set
    where a custom op or semiring is among them) lets a worker process keep one instance of them: a custom
    op or semiring is part of plan keys through its numpy twin's identity, and each task's arguments are
    unpickled anew on a distributed worker, which would plan every task again."""

    ops: tuple
    op_out: object
    semiring: object
    token: str | None = None


_INTERNED: OrderedDict = OrderedDict()
_INTERNED_LOCK = threading.Lock()
INTERNED_SIZE = 256


def _arith(ops, op_out, semiring) -> _Arith:
    ops = tuple(ops)
    custom = any(o is not None and not o.builtin for o in (*ops, op_out)) or (
        semiring is not None and all(semiring is not b for b in _SEMIRINGS.values()))
    # tokenize hashes the twins' pickled code and closures: equal tokens, identical behaviour
    return _Arith(ops, op_out, semiring, dask.base.tokenize(ops, op_out, semiring) if custom else None)


def _interned(a: _Arith) -> _Arith:
    """The first instance of `a` this process saw under its token (a itself when it has none)."""
    if a.token is None:
        return a
    with _INTERNED_LOCK:
        hit = _INTERNED.get(a.token)
        if hit is not None:
            _INTERNED.move_to_end(a.token)
            return hit
        _INTERNED[a.token] = a
        if len(_INTERNED) > INTERNED_SIZE:
            _INTERNED.popitem(last=False)
        return a


def _block_einsum(*blocks, subscripts, n_split, arith, kernel_dtype, compute, convert=None):
    """One task: gettpy.einsum on one block of each operand; one extent-1 axis per split contracted mode.
    `convert` (one callable or None per block) moves a block streamed from host memory to the device; the
    moved copy is local to the task, so it is released when the task returns."""
    arith = _interned(arith)
    xs = [_unwrap(b) for b in blocks]
    if convert is not None:
        xs = [x if c is None else c(x) for x, c in zip(xs, convert, strict=True)]
    r = _einsum(subscripts, *xs, ops=list(arith.ops), op_out=arith.op_out,
                semiring=arith.semiring, dtype=kernel_dtype, casting="unsafe", compute=compute)
    del xs
    return r.reshape(r.shape + (1,) * n_split) if n_split else r


def _semiring_reduce(x, axis, keepdims, arith, **_):
    """⊕ over `axis` of a block of partial results, through gettpy's one-operand reduction
    (⊕_z x ⊗ one = ⊕_z x), so that the CPU and the GPU executor each reduce their own blocks."""
    semiring = _interned(arith).semiring
    axis = (axis,) if isinstance(axis, int) else tuple(a % x.ndim for a in axis)
    if all(x.shape[a] == 1 for a in axis):  # one partial along every reduced axis: ⊕ of one value is itself
        return x if keepdims else x.reshape(tuple(e for i, e in enumerate(x.shape) if i not in axis))
    sub = LETTERS[:x.ndim]
    r = _einsum(f"{sub}->{''.join(c for i, c in enumerate(sub) if i not in axis)}", x, semiring=semiring)
    if keepdims:
        r = r.reshape(tuple(1 if i in axis else e for i, e in enumerate(x.shape)))
    return r


def _block_finish(x, arith, out_dtype):
    """op_out (in x's type) and the cast to the result type, after the reduction over blocks."""
    sub = LETTERS[:x.ndim]
    return _einsum(f"{sub}->{sub}", x, op_out=_interned(arith).op_out, dtype=out_dtype, casting="unsafe")


# ------------------------------------------------------------------------------------------ front end
def _chunk_library(x, i: int, meta=None) -> str:
    meta = x._meta if meta is None else meta
    mod = type(meta).__module__.split(".")[0]
    if mod not in ("numpy", "cupy"):
        raise ArgumentError(f"operand {i}: its chunks are {type(meta).__module__}.{type(meta).__name__}; "
                          f"gettpy.dask contracts numpy- or CuPy-chunked Dask arrays")
    return mod


def _as_dask(x, i: int):
    if isinstance(x, da.Array):
        return x
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return da.from_array(x, chunks=x.shape or (), asarray=False)  # one chunk, same array library
    raise ArgumentError(f"operand {i}: expected a Dask array (or a numpy/CuPy array), got {type(x).__name__}")


def _symbols(subs) -> dict[str, str]:
    modes = dict.fromkeys(m for t in (*subs.inputs, subs.output) for m in t)
    if len(modes) > len(LETTERS):
        raise SubscriptError(f"{len(modes)} distinct modes; gettpy names at most {len(LETTERS)}")
    # letters first (readable block subscripts), the ellipsis' modes after them
    named = [m for m in modes if not m.startswith("...")]
    free = iter(c for c in LETTERS if c not in named)
    return {m: (m if not m.startswith("...") else next(free)) for m in modes}


def _unify_chunks(arrays, inputs, ext, rechunk: bool):
    """Give every mode one chunking across the operands that carry it at full extent (a broadcast extent-1
    dimension keeps its single chunk). With `rechunk`, an operand is rechunked to the chunking of the
    largest operand carrying the mode (the largest moves least); otherwise a ShapeError names both."""
    arrays = list(arrays)
    for m in dict.fromkeys(m for t in inputs for m in t):
        if ext[m] <= 1:
            continue
        holders = [(i, ax) for i, t in enumerate(inputs) for ax, mm in enumerate(t)
                   if mm == m and arrays[i].shape[ax] == ext[m]]
        chunkings = {arrays[i].chunks[ax] for i, ax in holders}
        if len(chunkings) <= 1:
            continue
        i0, ax0 = max(holders, key=lambda h: (arrays[h[0]].nbytes, -h[0]))
        target = arrays[i0].chunks[ax0]
        name = "'...'" if m.startswith("...") else repr(m)
        if not rechunk:
            i1, ax1 = next(h for h in holders if arrays[h[0]].chunks[h[1]] != target)
            raise ShapeError(f"mode {name}: operand {i0} is chunked {target} along it (axis {ax0}) but operand "
                             f"{i1} is chunked {arrays[i1].chunks[ax1]} (axis {ax1}); rechunk one of them to "
                             f"the other's chunks, or pass rechunk=True")
        for i, ax in holders:
            if arrays[i].chunks[ax] != target:
                arrays[i] = arrays[i].rechunk({ax: target})
    return arrays


def _path(inputs, output, ext, optimize) -> list[tuple[int, ...]]:
    """The pairwise order of the operands (by their full extents): gettpy.einsum's, one step for two operands."""
    steps = _explicit_steps(optimize)
    if steps is not None and len(inputs) <= 2:  # (checked as gettpy.einsum checks it, then one step)
        _check_path(steps, len(inputs))
    if len(inputs) <= 2:
        return [tuple(range(len(inputs)))]
    return pairwise_path(inputs, output, ext, optimize)


@dataclass(frozen=True, slots=True)
class _Layer:
    semiring: object
    compute: str | None
    split_every: object
    library: str


def _meta(library: str, ndim: int, dtype):
    xp = np if library == "numpy" else __import__("cupy")
    return xp.empty((0,) * ndim, dtype=dtype)


def _contract(xs, in_modes, out_modes, sym, ops, op_out, step_dtype, acc_dtype, layer: _Layer, convert=None):
    """One blockwise layer contracting `xs` (one or two Dask arrays) into `out_modes`, then the tree
    reduction over the contracted modes that are split into several chunks. Returns (array, fused):
    `fused` when op_out was applied inside the block tasks (no reduction followed them). `convert`: one
    callable or None per x, applied to its block inside the task (operands streamed from host memory)."""
    if convert is not None and all(c is None for c in convert):
        convert = None
    nblocks: dict[str, int] = {}
    for x, t in zip(xs, in_modes, strict=True):
        for ax, m in enumerate(t):
            nblocks[m] = max(nblocks.get(m, 1), x.numblocks[ax])
    contracted = [m for m in dict.fromkeys(m for t in in_modes for m in t) if m not in out_modes]
    split = [m for m in contracted if nblocks[m] > 1]
    fused = not split and op_out is not None
    sub = ",".join("".join(sym[m] for m in t) for t in in_modes) + "->" + "".join(sym[m] for m in out_modes)
    kernel_dtype = step_dtype if not split else acc_dtype
    pairs = [a for x, t in zip(xs, in_modes, strict=True) for a in (x, tuple(sym[m] for m in t))]
    out_ind = tuple(sym[m] for m in (*out_modes, *split))
    r = da.blockwise(_block_einsum, out_ind, *pairs, adjust_chunks={sym[m]: 1 for m in split}, token="gettpy-einsum",
                     dtype=kernel_dtype, meta=_meta(layer.library, len(out_ind), kernel_dtype),
                     subscripts=sub, n_split=len(split), arith=_arith(ops, op_out if fused else None, layer.semiring),
                     kernel_dtype=kernel_dtype, compute=layer.compute, convert=convert)
    if not split:
        return r, fused
    axes = tuple(range(len(out_modes), len(out_ind)))
    if layer.semiring is None:
        r = r.sum(axis=axes, split_every=layer.split_every, dtype=acc_dtype)
    else:
        red = partial(_semiring_reduce, arith=_arith((), None, layer.semiring))
        r = da.reduction(r, chunk=red, combine=red, aggregate=red, axis=axes, keepdims=False, dtype=acc_dtype,
                         split_every=layer.split_every, concatenate=True, name="gettpy-semiring-reduce",
                         meta=_meta(layer.library, len(out_modes), acc_dtype))
    return r, False


def _cupy_asarray(x):
    """The default `to_device` of streamed operands: the block copied to the current GPU.

    A numpy block is copied from its own (pageable) memory on the current stream (the copy returns once the
    driver has staged the source, so the block may be dropped after it). ``cupy.asarray`` would first copy it
    into a pinned buffer of the block's size, which CuPy's pinned pool then keeps: with blocks of tens of GB
    held in the workers' host memory, that doubles each worker's host footprint."""
    import cupy

    if not isinstance(x, np.ndarray):
        return cupy.asarray(x)
    x = np.ascontiguousarray(x)
    out = cupy.empty(x.shape, dtype=x.dtype)
    if x.nbytes:
        cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.ctypes.data, x.nbytes, cupy.cuda.runtime.memcpyHostToDevice,
                                      cupy.cuda.get_current_stream().ptr)
    return out


def _stream_set(stream, n: int) -> frozenset:
    if isinstance(stream, str | bytes) or not hasattr(stream, "__iter__"):
        raise ArgumentError(f"stream must be a sequence of operand indices, got {stream!r}")
    idx = [check_count("stream: operand index", i) for i in stream]
    for i in idx:
        if not -n <= i < n:
            raise ArgumentError(f"stream: operand index {i} is out of range for {n} operands")
    return frozenset(i % n for i in idx)


def _is_distributed(x) -> bool:
    sched = dask.base.get_scheduler(collections=[x])
    owner = getattr(sched, "__self__", None)
    return type(owner).__module__.startswith("distributed")


def einsum(*operands, out=None, dtype=None, optimize=True, ops=None, op_out=None, semiring=None, compute=None,
           rechunk=True, split_every=None, stream=(), to_device=None, **options):
    """einsum of Dask arrays, each block contraction a gettpy.einsum; the result is a lazy Dask array.

    Args:
        *operands: ``subscripts, A, B, ...`` or the sublist form, like ``gettpy.einsum``; the operands are
            Dask arrays with numpy chunks (CPU executor) or CuPy chunks (GPU); a plain numpy/CuPy array is
            taken as one chunk.
        out: optional array (numpy, CuPy, ``np.memmap``, zarr, ...) of the result's shape and dtype: the
            result is computed and stored into it block by block (``dask.array.store``; under a
            ``distributed`` scheduler the result is gathered to the client and copied in), and `out` is
            returned. A Dask array is refused (Dask arrays are immutable).
        dtype: the result type and the type of the computation, as in gettpy.einsum. For float16/bfloat16
            results, partial results of split contracted modes are kept and summed in float32 and rounded
            once at the end.
        optimize: opt_einsum's strategy for the pairwise order of three or more operands (chosen on the
            full extents, not per block), or an explicit ``["einsum_path", ...]`` path, or False.
        ops: one unary op per operand, applied to every element as it is read (per block; exact, since ops
            are elementwise).
        op_out: unary op on the result: applied after the reduction over all chunks of the contracted
            modes (inside the block tasks when no contracted mode is split), so it is the op of the full sum.
        semiring: as gettpy.einsum; blocks are contracted in the semiring and the partial results of split
            contracted modes are combined with its ⊕ (its own tree reduction), never with +.
        compute: as gettpy.einsum ("tf32", "3xtf32" for float32 operands; None).
        rechunk: the chunks of a mode must agree across the operands that carry it. True (default):
            operands whose chunking of a shared mode differs are rechunked automatically to the chunking
            of the largest such operand (Dask's ``rechunk``; the largest operand never moves). False: a
            ShapeError naming the mode, the two operands and their chunks.
        split_every: depth of Dask's tree reduction over split contracted modes (Dask's default when None).
        stream: indices of operands to stream from host memory: numpy-chunked Dask arrays (e.g. persisted
            in the workers' host memory) that stay there; each block task that reads one of their blocks
            moves it to the device itself (`to_device`) and drops the device copy when it returns, so only
            the blocks of running tasks occupy device memory. For operands larger than the GPUs' memory.
        to_device: the function a task applies to a streamed block (default ``cupy.asarray``: the worker's
            current GPU). The result's chunk type is what it returns.
        **options: numpy's ``casting`` (default "safe") and ``order`` (ignored), as gettpy.einsum.

    Returns:
        A Dask array (chunks of each output mode as the operands'), or `out` after storing into it.

    Raises:
        SubscriptError, ShapeError, PathError, DtypeError, ArgumentError: at graph-construction time, naming
        the operand, mode and values at fault.
    """
    for k in options:
        if k not in _NUMPY_OPTIONS:
            raise TypeError(f"einsum() got an unexpected keyword argument {k!r}")
    casting = check_casting(options.get("casting", "safe"))
    check_order(options.get("order", "K"))
    check_optimize(optimize)
    dtype = user_dtype(dtype)  # ('i8' is numpy's int64, as in gettpy.einsum)
    if not operands:
        raise SubscriptError("einsum needs subscripts and at least one operand")
    args = list(operands)
    if isinstance(args[0], str):
        args[1:] = [_as_dask(x, i) for i, x in enumerate(args[1:])]
        arrays = args[1:]
    else:
        for j in range(0, len(args) - (len(args) % 2), 2):
            args[j] = _as_dask(args[j], j // 2)
        arrays = args[0:len(args) - (len(args) % 2):2]
    subs, _ = parse(tuple(args))
    if not arrays:
        raise SubscriptError("einsum needs at least one operand")
    for i, x in enumerate(arrays):
        if any(math.isnan(e) for e in x.shape):
            raise ShapeError(f"operand {i} has unknown chunk sizes (shape {x.shape}); call its "
                             f"compute_chunk_sizes() first")
    streamed = _stream_set(stream, len(arrays))
    if to_device is not None and not callable(to_device):
        raise ArgumentError(f"to_device must be callable, got {type(to_device).__name__}")
    move = None
    if streamed:
        move = to_device if to_device is not None else _cupy_asarray
        for i in sorted(streamed):
            if _chunk_library(arrays[i], i) != "numpy":
                raise ArgumentError(f"operand {i} is streamed (stream=) but its chunks are "
                                    f"{type(arrays[i]._meta).__module__}; streamed operands stay in host memory: "
                                    f"give them numpy chunks")
        i0 = min(streamed)  # what to_device makes of an empty block tells the device's array library
        dev = "cupy" if to_device is None else _chunk_library(
            None, i0, move(np.empty((0,) * arrays[i0].ndim, dtype=arrays[i0].dtype)))
    kept = {_chunk_library(x, i) for i, x in enumerate(arrays) if i not in streamed}
    libs = {dev for _ in streamed} | kept
    if len(libs) > 1 and streamed:
        raise ArgumentError(f"operands {sorted(streamed)} are streamed to {dev} blocks (stream=, to_device=) but the "
                            f"others have {', '.join(sorted(kept))} chunks: every operand must end up on one device "
                            f"(stream them all, or give the others {dev} chunks)")
    if len(libs) > 1:
        raise ArgumentError("operands mix numpy- and CuPy-chunked Dask arrays; move them to one device first")
    library = libs.pop()
    if out is not None:
        if isinstance(out, da.Array):
            raise ArgumentError("out is a Dask array; Dask arrays are immutable: use the returned array, or pass "
                              "a numpy/CuPy/zarr/memmap array to store into")
        if not hasattr(out, "shape") or not hasattr(out, "dtype"):
            raise ArgumentError(f"out must be an array, got {type(out).__name__}")
    if compute is not None and compute not in TF32_MODES:
        raise DtypeError(f"compute={compute!r}: the opt-in compute types are {', '.join(TF32_MODES)} (float32 "
                         f"operands); leave it None for the default")
    sr = as_semiring(semiring)
    ops_in = _ops_for(len(arrays), ops)
    op_d = as_op(op_out, "op_out")
    # numpy's type rules (dtypes.resolve checks dtype=, out's dtype and casting); with dtype= and an out of
    # another type the result is computed in dtype= and cast as it is stored into out
    res = resolve([x.dtype for x in arrays], dtype, None if out is None else out.dtype, casting)
    # (the result is computed in dtype= where given, else in the operands' result type, and cast once as it is
    #  stored into an out of another type, as numpy and gettpy.einsum compute it)
    calc = res.stage or (res.output if out is None else resolve([x.dtype for x in arrays], dtype, None, casting).output)
    in_s, out_s = res.inputs, calc
    if library == "cupy":
        for s_ in {in_s, out_s}:
            check_gpu(s_, "einsum on CuPy-chunked Dask arrays")
    bf16 = next((x.dtype for x in (*arrays, out) if x is not None and x.dtype.name == "bfloat16"), None)
    out_dt = numpy_dtype(out_s) if out_s != "bf16" else bf16
    acc_dt = np.dtype(np.float32) if out_s in _HALF else out_dt  # partial results of split contracted modes
    step_dt = out_dt if dtype is not None or in_s == out_s else acc_dt
    ext = _resolve_extents(subs.inputs, arrays)
    for i, (t, x) in enumerate(zip(subs.inputs, arrays, strict=True)):
        for m in set(t):
            es = {e for mm, e in zip(t, x.shape, strict=True) if mm == m}
            if len(es) > 1:
                raise ShapeError(f"operand {i}: mode {m!r} is repeated with extents {sorted(es)}; a repeated "
                                 f"mode (diagonal) needs equal extents")
    out_shape = tuple(ext[m] for m in subs.output)
    if out is not None and tuple(out.shape) != out_shape:
        raise ShapeError(f"out has shape {tuple(out.shape)} but the result has shape {out_shape}")
    arrays = _unify_chunks(arrays, subs.inputs, ext, rechunk)
    sym = _symbols(subs)
    if split_every is not None:  # (the tree reduction's fan-in; None: Dask's default)
        check_count("split_every", split_every, 2)
    layer = _Layer(sr, compute, split_every, library)

    # the pairwise steps: slots 0..n-1 are the operands, each step appends its intermediate
    slots = list(zip(arrays, subs.inputs, ops_in, strict=True))
    moves = [move if i in streamed else None for i in range(len(arrays))]  # per slot: intermediates are on device
    path = _path(subs.inputs, subs.output, ext, optimize)
    fused = False
    for j, pair in enumerate(path):
        picked = [slots[p] for p in sorted(pair)]
        conv = [moves[p] for p in sorted(pair)]
        for p in sorted(pair, reverse=True):
            slots.pop(p)
            moves.pop(p)
        last = j == len(path) - 1
        if last:
            modes = subs.output
        else:
            keep = set(subs.output).union(*(set(t) for _, t, _ in slots))
            modes = tuple(m for m in dict.fromkeys(m for _, t, _ in picked for m in t) if m in keep)
        r, fused = _contract([x for x, _, _ in picked], [t for _, t, _ in picked], modes, sym,
                             [o for _, _, o in picked], op_d if last and not op_d.is_identity else None,
                             out_dt if last else step_dt, acc_dt, layer, conv)
        slots.append((r, modes, identity))
        moves.append(None)
    if len(slots) != 1:
        raise PathError(f"the contraction path left {len(slots)} operands; it must end in one")
    result = slots[0][0]
    if (not op_d.is_identity and not fused) or result.dtype != out_dt:
        result = result.map_blocks(_block_finish, arith=_arith((), op_d, None), out_dtype=out_dt, dtype=out_dt,
                                   meta=_meta(library, result.ndim, out_dt))
    if out is None:
        return result
    if _is_distributed(result):
        out[...] = result.compute()
    else:
        da.store(result, out, lock=False, compute=True)
    return out


# ------------------------------------------------------------------------------------------ where tasks ran
def _key_name(key) -> str:
    """The name part of a Dask key: a tuple key's first item, or a string key itself (a task stream may
    carry keys stringified, as ``"('name', 0, 1)"``)."""
    if isinstance(key, tuple):
        return str(key[0]) if key else ""
    key = str(key)
    if key.startswith("(") and key.endswith(")"):
        try:
            t = ast.literal_eval(key)
        except (ValueError, SyntaxError):
            return key
        return str(t[0]) if isinstance(t, tuple) and t else key
    return key


def task_workers(task_stream, *collections) -> dict[str, int]:
    """How many tasks of `collections`' graphs each worker ran, from a ``distributed`` task stream.

    The graphs are taken after Dask's optimisation (``dask.optimize``), as the scheduler ran them: there
    blockwise fusion may fold gettpy's block contractions into the tasks of a later layer, whose keys then
    carry that layer's name, so the tasks are matched by the names of the optimised graph's keys, not by
    gettpy's layer names (the unoptimised graph's names count too). Tasks of other graphs in the stream are ignored.

    Args:
        task_stream: the records of ``distributed.get_task_stream`` (its ``.data``), or any iterable of
            mappings with "key" and "worker".
        *collections: the Dask collections that were computed.

    Returns:
        {worker address: number of tasks}, only the workers that ran at least one of them.
    """
    graphs = [c.__dask_graph__() for c in (*dask.optimize(*collections), *collections)]
    names = {_key_name(k) for g in graphs for k in g}
    ran: dict[str, int] = {}
    for t in task_stream:
        if _key_name(t["key"]) in names:
            ran[t["worker"]] = ran.get(t["worker"], 0) + 1
    return ran


# ------------------------------------------------------------------------------------------ chunking guidance
#: an output block below one full wave of 128x128 tiles on an H100's 132 SMs leaves SMs idle
MIN_OUT_BLOCK = 132 * 128 * 128
#: a contracted extent below this makes a block's GEMM K loop too short to amortise loading its tiles
MIN_K = 256


@dataclass(frozen=True, slots=True)
class ChunkSuggestion:
    """Chunks for a contraction's operands (what ``suggest_chunks`` returns).

    Attributes:
        operands: one chunk shape per operand (pass to ``dask.array.from_array(x, chunks=...)`` or
            ``x.rechunk(...)``).
        output: the chunk shape the result will have.
        modes: ``(mode, chunk)`` for each mode, in order of first appearance.
        working_set_bytes: the estimated peak device memory of one worker (see suggest_chunks).
        output_blocks: number of output blocks (tasks that can run in parallel).
        reduction_blocks: number of partial results per output block (1: no reduction across blocks).
        resident_bytes: the part of the working set held on a worker between tasks (its share of the
            operands that are not streamed and of the results).
        workspace_bytes: the largest block contraction's own temporaries (gettpy's planned packs and
            workspaces), part of the working set.
    """

    operands: tuple[tuple[int, ...], ...]
    output: tuple[int, ...]
    modes: tuple[tuple[str, int], ...]
    working_set_bytes: int
    output_blocks: int
    reduction_blocks: int
    resident_bytes: int = 0
    workspace_bytes: int = 0


def _device_memory() -> int:
    try:
        import cupy

        return int(cupy.cuda.Device().mem_info[1])
    except Exception:  # noqa: BLE001 - no CuPy or no device
        raise GettpyError("suggest_chunks: no GPU is visible to tell its memory; pass memory_bytes=") from None


def _block_workspace(ins, omodes, chunk: dict, dtype: str) -> int:
    """Bytes of the temporaries gettpy's planner gives the contraction of one block of each of `ins` into
    `omodes` (packed inputs, staged output, split workspaces), planned for the default GPU target. Where it
    cannot be planned here (one operand, a diagonal), the bound of one extra copy of each input block and
    of the output block."""
    from .einsum import _c_strides
    from .plan.cache import cached_schedule
    from .plan.problem import ContractionProblem, TensorInfo

    def size(t):
        return ITEMSIZE[dtype] * math.prod(chunk[m] for m in t)

    bound = sum(size(t) for t in ins) + size(omodes)
    if len(ins) != 2 or any(chunk[m] == 0 for t in ins for m in t):
        return bound
    try:
        infos = [TensorInfo(name, tuple(t), _c_strides(tuple(chunk[m] for m in t)), dtype)
                 for name, t in (("A", ins[0]), ("B", ins[1]), ("D", omodes))]
        ext = tuple(sorted((m, chunk[m]) for m in set(ins[0]) | set(ins[1])))
        return int(cached_schedule(ContractionProblem(infos[0], infos[1], None, infos[2], ext), "cupy")
                   .workspace_bytes)
    except GettpyError:
        return bound


def suggest_chunks(subscripts: str, shapes, dtype, memory_bytes: int | None = None, *, headroom: float = 0.2,
                   parallelism: int = 1, split_every: int = 4, min_out_block: int = MIN_OUT_BLOCK,
                   min_k: int = MIN_K, optimize=True, streamed=(), tasks_per_worker: int = 1) -> ChunkSuggestion:
    """Chunks for ``gettpy.dask.einsum(subscripts, ...)`` so that each worker's GPU holds what it must.

    The working set of one worker (one GPU) is what it holds between tasks plus what its running tasks
    add. Held: its share of every operand that is not streamed (``ceil(blocks / parallelism)`` blocks; an
    operand in one block is held whole by every worker that reads it) and of the results of every
    pairwise step (opt_einsum's order for three or more operands). Added by each of `tasks_per_worker`
    running tasks, for the pairwise step that needs most: the device copies of the streamed operands'
    blocks it reads, the block contraction's own temporaries (gettpy's planner is asked for the block
    problem's schedule, whose packed copies of the inputs and output workspaces it reports), and its
    output block plus, where a contracted mode is split, the `split_every` partial results the tree
    reduction concatenates. The total must fit ``memory_bytes * (1 - headroom)`` (the headroom is for the
    CUDA context, the memory pool's fragmentation and blocks that Dask keeps while they are sent).

    Starting from one chunk per mode, the largest chunk is halved until the working set fits and the
    output has at least `parallelism` blocks (e.g. the number of GPUs): output modes first (no reduction
    follows), contracted modes second. A split that would bring an output block below `min_out_block`
    elements or a block's contracted extent below `min_k` (below them the single-GPU planner leaves the
    GPU idle) is taken only when nothing else makes the working set fit, never for parallelism alone.

    Args:
        subscripts: einsum subscripts (explicit or implicit output; ``...`` allowed).
        shapes: the operands' shapes.
        dtype: the operands' (and the result's) dtype.
        memory_bytes: device memory of one worker; default the current GPU's total memory.
        headroom: fraction of `memory_bytes` kept free.
        parallelism: the number of workers (GPUs), and the least number of output blocks wanted.
        split_every: the tree reduction's fan-in (pass the same to gettpy.dask.einsum).
        min_out_block, min_k: the fast-regime bounds above (elements).
        optimize: opt_einsum's strategy for the pairwise order (as gettpy.dask.einsum's).
        streamed: indices of the operands streamed from host memory (gettpy.dask.einsum's ``stream=``):
            none of their blocks is held on a GPU between tasks.
        tasks_per_worker: block tasks one worker runs at once (its threads).

    Returns:
        A ChunkSuggestion.

    Raises:
        ShapeError: when even chunks of one element per mode do not fit (OptionError: no memory budget left,
            or a bad `streamed`, `parallelism` or `tasks_per_worker`).
    """
    shapes = [tuple(int(e) for e in s) for s in shapes]
    stand_ins = [np.broadcast_to(np.empty((), dtype=np.float64), s) for s in shapes]  # shapes, no memory
    subs, _ = parse((subscripts, *stand_ins))
    ext = _resolve_extents(subs.inputs, stand_ins)
    dt = short_name(dtype, "dtype")
    item = ITEMSIZE[dt]
    acc_item = 4 if item == 2 else item
    for name, v in (("memory_bytes", memory_bytes), ("headroom", headroom)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating)):
            raise ArgumentError(f"suggest_chunks: {name} must be a number, got {type(v).__name__} {v!r}")
    if not 0 <= headroom < 1 or memory_bytes is not None and not memory_bytes > 0:  # (NaN fails both)
        raise OptionError(f"suggest_chunks: memory_bytes={memory_bytes} must be positive and headroom={headroom} in "
                          f"[0, 1)")
    for name, v in (("parallelism", parallelism), ("tasks_per_worker", tasks_per_worker), ("split_every", split_every)):
        check_count(f"suggest_chunks: {name}", v)
    budget = (memory_bytes if memory_bytes is not None else _device_memory()) * (1.0 - headroom)
    if budget <= 0:
        raise OptionError(f"suggest_chunks: memory_bytes={memory_bytes} with headroom={headroom} leaves nothing")
    if parallelism < 1 or tasks_per_worker < 1:
        raise OptionError(f"suggest_chunks: parallelism={parallelism} and tasks_per_worker={tasks_per_worker} "
                          f"must be at least 1")
    try:
        stream_set = _stream_set(streamed, len(shapes))
    except ArgumentError as exc:
        raise OptionError(f"suggest_chunks: {exc}") from None
    path = _path(subs.inputs, subs.output, ext, optimize)
    steps = []  # (input mode tuples, streamed flags, output modes, contracted modes) of each pairwise step
    slots = [(t, i in stream_set) for i, t in enumerate(subs.inputs)]
    for j, pair in enumerate(path):
        picked = [slots[p] for p in sorted(pair)]
        for p in sorted(pair, reverse=True):
            slots.pop(p)
        ins = [t for t, _ in picked]
        if j == len(path) - 1:
            modes = subs.output
        else:
            keep = set(subs.output).union(*(set(t) for t, _ in slots))
            modes = tuple(m for m in dict.fromkeys(m for t in ins for m in t) if m in keep)
        steps.append((ins, [f for _, f in picked], modes, [m for m in dict.fromkeys(m for t in ins for m in t)
                                                           if m not in modes]))
        slots.append((modes, False))
    chunk = dict(ext)
    out_modes = [m for m in ext if m in subs.output]
    k_modes = [m for m in ext if m not in subs.output]
    # an operand's broadcast (extent-1) dimension is one block of one element whatever its mode's chunk
    full = [[m for m, e in zip(t, s, strict=True) if e == ext[m]] for t, s in zip(subs.inputs, shapes, strict=True)]

    def blocks(m):
        return -(-ext[m] // chunk[m]) if ext[m] else 1

    def elems(modes):
        return math.prod(chunk[m] for m in dict.fromkeys(modes))

    def share(n_blocks):
        return -(-n_blocks // parallelism)

    def parts_of(ms):
        return math.prod(blocks(m) for m in dict.fromkeys(ms))

    def resident():
        held = sum(share(parts_of(full[i])) * item * elems(full[i]) for i in range(len(shapes))
                   if i not in stream_set)
        return held + sum(share(parts_of(omodes)) * item * elems(omodes) for _, _, omodes, _ in steps)

    def task(step):
        ins, flags, omodes, kmodes = step
        parts = parts_of(kmodes)
        fan = min(parts, split_every) if parts > 1 else 0
        copies = sum(item * elems(t) for t, f in zip(ins, flags, strict=True) if f)
        ws = _block_workspace(ins, omodes, chunk, dt)
        return copies + ws + acc_item * elems(omodes) * (1 + fan), ws

    def working_set():
        per = [task(st) for st in steps]
        return resident() + tasks_per_worker * max(t for t, _ in per), max(w for _, w in per)

    def n_out():
        return math.prod(blocks(m) for m in out_modes)

    def halve(m):
        c = -(-chunk[m] // 2)
        return c - c % 8 if c >= 64 else c  # multiples of 8 keep the blocks' runs 16-byte friendly

    def fast(m):
        new = halve(m)
        if m in out_modes:
            return elems(subs.output) // chunk[m] * new >= min_out_block
        return math.prod(chunk[k] for k in k_modes) // chunk[m] * new >= min_k

    while True:
        too_big = working_set()[0] > budget
        if not too_big and n_out() >= parallelism:
            break
        splittable = [m for m in ext if chunk[m] > 1]
        ranked = [m for m in out_modes if m in splittable and fast(m)]
        if not ranked and too_big:  # split a contracted mode only for memory, never for parallelism
            ranked = [m for m in k_modes if m in splittable and fast(m)] or splittable
        if not ranked:
            if too_big:
                raise ShapeError(f"suggest_chunks: {subscripts!r} with shapes {shapes} does not fit "
                                  f"{budget:.3g} bytes even with one element per chunk (what a worker holds "
                                  f"between tasks: {resident():.3g} bytes; stream the large operands from host "
                                  f"memory (streamed=, and einsum's stream=) or use more workers)")
            break
        m = max(ranked, key=lambda m: (chunk[m], m in out_modes))
        chunk[m] = halve(m)
    parts = math.prod(blocks(m) for m in k_modes)
    ops_chunks = tuple(tuple(chunk[m] if e == ext[m] else 1 for m, e in zip(t, s, strict=True))
                       for t, s in zip(subs.inputs, shapes, strict=True))
    total, ws = working_set()
    return ChunkSuggestion(ops_chunks, tuple(chunk[m] for m in subs.output),
                           tuple((m, chunk[m]) for m in ext), int(total), n_out(), parts, int(resident()), int(ws))
