"""Run a Schedule: pack inputs, run the core plan, reduce/copy the workspace into D.

Shared by both executors: `xp` is numpy or CuPy and `core` is the executor's own
``execute(plan, a, b, c, d, alpha, beta)``. The copies are strided copies (one read, one write): the
array library's, or on the GPU `gettpy.kernels.permute`'s tiled copy where the source's and the
destination's fast axes differ; the contraction itself is always the core plan.
"""
from __future__ import annotations

import math

from ..dtypes import numpy_dtype
from ..layouts import descriptor
from ..plan.problem import TensorInfo
from ..plan.schedule import Schedule


def _view(xp, x, t: TensorInfo, order: tuple[str, ...], ext: dict[str, int]):
    """A view of `x` (laid out as `t`) with one axis per mode of `order`, slowest first."""
    st = t.stride_of()
    modes = tuple(reversed(order))
    shape = tuple(ext[m] for m in modes)
    strides = tuple(st[m] * x.itemsize for m in modes)
    return xp.lib.stride_tricks.as_strided(x, shape=shape, strides=strides)


def _pack_args(xp, x, t: TensorInfo, pk: TensorInfo, ext):
    """(view of x in pk's mode order, op expression the pack applies: t's op unless pk keeps it, else "")."""
    apply_op = not t.op.is_identity and pk.op.is_identity
    return _view(xp, x, t, pk.modes, ext), t.op.cuda if apply_op else ""


def _pack(xp, x, t: TensorInfo, pk: TensorInfo, ext):
    """A fresh packed copy of `x` in `pk`'s layout; op(x) when the pack applies t's op (pk has none)."""
    view, op = _pack_args(xp, x, t, pk, ext)
    if xp.__name__ == "cupy":  # tiled through shared memory where the fast axes differ; op(x) computed
        from ..kernels.permute import permute_copy  # as the fused op

        return permute_copy(view, op)
    if not op:
        # always a fresh (aligned) copy: ascontiguousarray would return an already contiguous view as is
        return xp.array(view, order="C", copy=True)
    return xp.array(t.op.on_input(view, x.dtype), order="C", copy=True)  # (as the fused op: held in x's type)


def _pack_padded(xp, x, t: TensorInfo, pk: TensorInfo, ext, pad):
    """`_pack` into a zero-filled buffer of the pad extents: the packed copy fills its leading corner. On the GPU,
    where only the fastest mode is padded, one copy writes the padded rows, margins zeroed: the realigning row
    copy (gettpy.kernels.realign) where the rows are contiguous in the source, else the tiled copy."""
    if xp.__name__ == "cupy" and all(pad[m] == ext[m] for m in pk.modes[1:]):
        from ..kernels.permute import permute_pad
        from ..kernels.realign import realign_pack

        view, op = _pack_args(xp, x, t, pk, ext)
        out = realign_pack(view, pad[pk.modes[0]]) if not op else None
        if out is None:
            out = permute_pad(view, pad[pk.modes[0]], op)
        if out is not None:
            return out
    dense = _pack(xp, x, t, pk, ext)
    modes = tuple(reversed(pk.modes))
    buf = xp.zeros(tuple(pad[m] for m in modes), dtype=dense.dtype)
    buf[tuple(slice(0, ext[m]) for m in modes)] = dense  # (same order on both sides: a coalesced copy)
    return buf


def run(schedule: Schedule, xp, core, a, b, c, d, alpha=1.0, beta=0.0) -> None:
    """D = op_d(alpha op_a(A) op_b(B) + beta op_c(C)) through the schedule's stages."""
    p = schedule.problem
    if not schedule.staged:
        core(schedule.core, a, b, c, d, alpha, beta)
        return
    if schedule.own_kernel:  # (the direct or long-K kernel on the GPU; elsewhere the plan of the problem as posed)
        if xp.__name__ != "cupy":
            core(schedule.core, a, b, c, d, alpha, beta)
        elif schedule.direct is not None:
            _direct(schedule, a, b, c, d, alpha, beta)
        else:
            _longk(schedule, xp, a, b, c, d, alpha, beta)
        return
    ext = dict(p.extents)
    if schedule.inner is not None:
        _run_fold(schedule, xp, core, a, b, c, d, alpha, beta, ext)
        return
    # (1) pack the inputs that would otherwise be gathered element by element (zero-filled to the pad
    #     extents where the schedule has them)
    if schedule.pad_ext:
        pad = dict(schedule.pad_ext)
        if schedule.pack_a is not None:
            a = _pack_padded(xp, a, p.a, schedule.pack_a, ext, pad)
        if schedule.pack_b is not None:
            b = _pack_padded(xp, b, p.b, schedule.pack_b, ext, pad)
    elif schedule.pack_a is not None and schedule.pack_b is not None and xp.__name__ == "cupy":
        from ..kernels.permute import permute_copy_pair  # (small packs: one launch for both)

        a, b = permute_copy_pair(*_pack_args(xp, a, p.a, schedule.pack_a, ext),
                                 *_pack_args(xp, b, p.b, schedule.pack_b, ext))
    else:
        if schedule.pack_a is not None:
            a = _pack(xp, a, p.a, schedule.pack_a, ext)
        if schedule.pack_b is not None:
            b = _pack(xp, b, p.b, schedule.pack_b, ext)
    w = schedule.stage_d
    if w is None:
        core(schedule.core, a, b, c, d, alpha, beta)
        return
    # (2) the core GEMM writes the packed workspace (split-K: one slice per split)
    wext = dict(schedule.core.problem.extents)
    ws = xp.empty(tuple(wext[m] for m in reversed(w.modes)), dtype=numpy_dtype(w.dtype))
    if math.prod(ws.shape) == 0:
        return
    if schedule.split_mode is not None and schedule.tail is not None:
        # (split-K over an extent the slices do not divide: one more slice, the tail's, after the core's)
        ws = xp.empty((ws.shape[0] + 1,) + ws.shape[1:], dtype=ws.dtype)
        core(schedule.core, a, b, None, ws[:-1], alpha, 0.0)
        text = dict(schedule.pad_ext) if schedule.pad_ext else ext  # (a padded pack's tail runs to its margin)
        ta, tb = (_tail_view(xp, x, t, schedule, text) for x, t in ((a, schedule.tail.problem.a),
                                                                      (b, schedule.tail.problem.b)))
        # (the last slice as the tail's D: its axes in the order of the tail's D modes, fastest first, as
        #  every run() takes its output; a view, also where it is 0-d)
        run(schedule.tail, xp, core, ta, tb, None, ws[-1, ...].T, alpha, 0.0)
    elif schedule.split_mode is not None:
        core(schedule.core, a, b, None, ws, alpha, 0.0)  # C and op_d come after the sum
    else:
        core(schedule.core, a, b, c, ws, alpha, beta)
    modes = tuple(reversed(w.modes))
    # (3) split-K: sum the slices (the split mode is the slowest, axis 0), then the epilogue the core
    #     left out: beta * op_c(C) and op_d, in the accumulate type
    if schedule.split_mode is not None:
        ws = xp.asarray(ws.sum(axis=0))  # (an array even when 0-d: numpy's sum returns a scalar then)
        modes = modes[1:]
    ws = ws.transpose(tuple(modes.index(m) for m in p.d.modes))
    if schedule.split_mode is not None:
        ws = _epilogue(p, ws, c, beta)
    # (4) copy into D through its own strides (the cast to D's type happens here)
    _into(xp, d, ws)


def _direct(schedule: Schedule, a, b, c, d, alpha, beta) -> None:
    """The direct kernel of `schedule` on CuPy arrays (C read where beta != 0 and a C is given)."""
    from ..kernels.direct import direct_run
    from ..kernels.spec import refuse_complex_scalars

    p = schedule.problem
    refuse_complex_scalars(alpha, beta, p.compute)
    direct_run(schedule.direct, a, b, c, d, alpha, beta, c is not None and beta != 0 and p.c is not None)


def _longk(schedule: Schedule, xp, a, b, c, d, alpha, beta) -> None:
    """The long-K kernel of `schedule` on CuPy arrays: its slices' partial sums (alpha applied; on float64-mma
    tiles to their float64 total, at alpha's full precision) added, then the epilogue and the copy into D."""
    from ..kernels.longk import longk_run
    from ..kernels.spec import refuse_complex_scalars

    p, lk = schedule.problem, schedule.longk
    refuse_complex_scalars(alpha, beta, p.compute)
    ext = dict(p.extents)
    modes = lk.m_modes + lk.n_modes
    if lk.layout.tile.f64_mma:  # (the float64 sums scaled in float64: the kernel's alpha is a float32)
        ws = longk_run(lk.layout, a, b, 1.0).sum(axis=0)
        ws = ws * float(alpha) if alpha != 1 else ws
    else:
        ws = longk_run(lk.layout, a, b, alpha).sum(axis=0)
    ws = ws.reshape(tuple(ext[m] for m in modes))
    ws = ws.transpose(tuple(modes.index(m) for m in p.d.modes))
    _into(xp, d, _epilogue(p, ws, c, beta))


def _epilogue(p, ws, c, beta):
    """beta * op_c(C) and op_d on a summed workspace `ws` (axes in D's mode order), in its accumulate type."""
    if c is not None and beta != 0 and p.c is not None:
        ct = c.transpose(tuple(p.c.modes.index(m) for m in p.d.modes))
        ws = ws + ws.dtype.type(beta) * p.c.op(ct.astype(ws.dtype))
    return p.d.op(ws)


def _packed_out(xp, t: TensorInfo, ext):
    """A fresh array laid out as the packed workspace `t`, its axes in t's mode order (fastest first)."""
    return xp.empty(tuple(ext[m] for m in reversed(t.modes)), dtype=numpy_dtype(t.dtype)).T


def _run_fold(schedule: Schedule, xp, core, a, b, c, d, alpha, beta, ext) -> None:
    """A diagonal fold (plan/fold.py): the folded GEMM's schedule into its workspace, the diagonal summed, the
    tail's sums added, then the epilogue and the copy into D."""
    inner, (_, k1a, k1b) = schedule.inner, schedule.fold
    wd = inner.problem.d
    w = _packed_out(xp, wd, dict(inner.problem.extents))
    run(inner, xp, core, a, b, None, w, alpha, 0.0)  # (the inputs' memory read through the folded modes)
    ws = xp.trace(w, axis1=wd.modes.index(k1a), axis2=wd.modes.index(k1b))
    modes = tuple(m for m in wd.modes if m not in (k1a, k1b))
    if schedule.tail is not None:
        td = schedule.tail.problem.d
        tw = _packed_out(xp, td, dict(schedule.tail.problem.extents))
        ta, tb = (_tail_view(xp, x, t, schedule, ext) for x, t in ((a, schedule.tail.problem.a),
                                                                     (b, schedule.tail.problem.b)))
        run(schedule.tail, xp, core, ta, tb, None, tw, alpha, 0.0)
        ws = ws + tw.transpose(tuple(td.modes.index(m) for m in modes))
    ws = ws.transpose(tuple(modes.index(m) for m in schedule.problem.d.modes))
    _into(xp, d, _epilogue(schedule.problem, ws, c, beta))


def _tail_view(xp, x, t: TensorInfo, schedule: Schedule, ext):
    """The part of input `x` (laid out as `t`, the tail's view of it) that a split schedule's tail reads: from
    index `schedule.tail_from` of the split mode on; `x` itself when the mode is not one of its modes."""
    mode = schedule.tail_mode
    if mode not in t.modes:
        return x
    order = tuple(reversed(t.modes))
    view = _view(xp, x, t, t.modes, ext)
    return view[tuple(slice(schedule.tail_from, None) if m == mode else slice(None) for m in order)]


def merge_axes(shape, src_strides, dst_strides) -> tuple[int, ...]:
    """The extents of a copy's axes (slowest first) after merging each pair of neighbours that is contiguous
    in both the source's and the destination's strides (elements or bytes): e.g. two batch modes that lead D and
    keep their order in a staged workspace become one axis, so the tiled copy's tiles span both
    (layouts.descriptor.merge_axes, slowest first)."""
    ext, _ = descriptor.merge_axes(shape[::-1], [tuple(src_strides)[::-1], tuple(dst_strides)[::-1]])
    return ext[::-1]


def _merged(src, dst):
    """(src, dst) reshaped to `merge_axes`' extents: views of the same memory (both reshapes need no copy)."""
    shape = merge_axes(src.shape, src.strides, dst.strides)
    if shape == src.shape or not shape:
        return src, dst
    s2, d2 = src.reshape(shape), dst.reshape(shape)
    if s2.data.ptr != src.data.ptr or d2.data.ptr != dst.data.ptr:  # (a copy: the writes would be lost)
        return src, dst
    return s2, d2


def _into(xp, d, ws) -> None:
    """d[...] = ws; on the GPU through the tiled copy (`permute_copy`) where D is dense in some order of
    its axes and of ws's dtype (CuPy's strided copy of a permutation moves a few hundred GB/s)."""
    if xp.__name__ == "cupy" and d.dtype == ws.dtype and d.size:
        perm = sorted(range(d.ndim), key=lambda i: -abs(d.strides[i]))  # (slowest first)
        dv = d.transpose(perm)
        if dv.flags.c_contiguous:
            from ..kernels.permute import permute_copy

            src, dst = _merged(ws.transpose(perm), dv)
            permute_copy(src, out=dst)
            return
    if ws.dtype != d.dtype:  # the final cast, as numpy's astype: integers wrap, complex into real keeps .real
        ws = (ws.real if ws.dtype.kind == "c" and d.dtype.kind != "c" else ws).astype(d.dtype)
    d[...] = ws
