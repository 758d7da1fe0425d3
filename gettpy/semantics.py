"""numpy's einsum semantics that the front end reproduces around the contraction itself.

* argument checks with numpy's exception kinds: ``order``, ``casting`` and ``optimize`` values;
* views: a one-operand einsum that sums nothing (``'ij->ji'``, ``'ii->i'``, ``'...'``) is a strided view
  of its operand, for numpy and CuPy arrays alike (numpy and CuPy both return views there), writeable
  when the operand is;
* 0-d results: numpy scalars, except where numpy's optimized path (optimize True, 'greedy', 'optimal' or a
  path) ends in a product of two operands over a summed mode, which numpy computes by a batched matmul and
  reshapes to a 0-d array (`optimized_zero_d_array`);
* the result's layout for ``order``: 'C', 'F', 'A' (F when every operand is F-contiguous, else C) and
  'K', which for numpy operands reproduces the axis order numpy's own (non-optimized) einsum gives,
  i.e. numpy's iterator ordering the axes by the operands' strides.
"""
from __future__ import annotations

import numpy as np

from .errors import ArgumentError, OptionError, ShapeError, StrategyError

ORDERS = ("K", "A", "C", "F")
CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def check_order(order) -> str:
    """numpy's ``order`` argument, upper-cased; None means 'K' (as numpy)."""
    if order is None:
        return "K"
    if not isinstance(order, str):
        raise ArgumentError(f"order must be a str ('K', 'A', 'C' or 'F'), got {type(order).__name__} {order!r}")
    if order.upper() not in ORDERS:
        raise OptionError(f"order must be one of 'K', 'A', 'C' or 'F', got {order!r}")
    return order.upper()


def check_casting(casting) -> str:
    """numpy's ``casting`` argument (case-sensitive, as numpy)."""
    if not isinstance(casting, str):
        raise ArgumentError(f"casting must be a str, got {type(casting).__name__} {casting!r}")
    if casting not in CASTINGS:
        raise OptionError(f"casting must be one of {', '.join(map(repr, CASTINGS))}, got {casting!r}")
    return casting


def check_count(what: str, v, least: int | None = None) -> int:
    """`v` as an int: an ArgumentError (a TypeError) naming `what` where it is not an integer (bools included), an
    OptionError (a ValueError) where it is under `least`."""
    if isinstance(v, bool | np.bool_) or not isinstance(v, int | np.integer):
        raise ArgumentError(f"{what} must be an integer, got {type(v).__name__} {v!r}")
    if least is not None and v < least:
        raise OptionError(f"{what}={v}: at least {least}")
    return int(v)


def check_optimize(optimize) -> None:
    """``optimize``: a bool (or None), an opt_einsum strategy name, a (name, memory limit) pair as numpy
    takes it, an opt_einsum PathOptimizer, or an explicit path (``['einsum_path', (0, 1), ...]`` as numpy
    writes it, or opt_einsum's list of tuples). Only the kind is checked here; an explicit path's steps
    are checked against the operands when the path is used."""
    import opt_einsum as oe

    if optimize is None or isinstance(optimize, bool | np.bool_) or isinstance(optimize, oe.paths.PathOptimizer):
        return
    if isinstance(optimize, str):
        _check_strategy(optimize)
        return
    if isinstance(optimize, tuple) and len(optimize) == 2 and isinstance(optimize[0], str) \
            and optimize[0] != "einsum_path":
        _check_strategy(optimize[0])
        if isinstance(optimize[1], bool) or not isinstance(optimize[1], int | float | np.integer | np.floating):
            raise ArgumentError(f"optimize={optimize!r}: the memory limit of a (strategy, limit) pair must be a "
                                f"number")
        return
    if isinstance(optimize, list | tuple):
        if not optimize:  # (numpy: "Did not understand the path", a TypeError)
            raise ArgumentError(f"optimize={optimize!r}: an empty path; give numpy's ['einsum_path', (i, j), ...], "
                                f"opt_einsum's list of pairs, or a strategy name")
        if isinstance(optimize[0], str) and optimize[0] != "einsum_path":
            raise ArgumentError(f"optimize={optimize!r}: not understood as a path (numpy's ['einsum_path', (i, j), "
                                f"...]) nor as a (strategy, memory limit) pair")
        return  # an explicit path: its steps are checked where the path is used
    raise ArgumentError(f"optimize must be a bool, a path strategy name ('auto', 'greedy', 'optimal', 'dp', "
                        f"'branch-2', 'random-greedy', ...) or an explicit path, got {type(optimize).__name__} "
                        f"{optimize!r}")


def _check_strategy(name: str) -> None:
    import opt_einsum as oe

    if name in ("auto", "auto-hq"):
        return
    try:
        oe.paths.get_path_fn(name)
    except KeyError:
        raise StrategyError(f"optimize={name!r} is not a path strategy: use True, False, 'auto', 'greedy', "
                          f"'optimal', 'dp', 'branch-all', 'branch-2', 'branch-1', 'random-greedy', "
                          f"'random-greedy-128', 'auto-hq' or an explicit path") from None


# ---------------------------------------------------------------------------------------------------------
# views


def fold_modes(modes: tuple[str, ...], shape, strides, i: int, extents: dict[str, int]) -> tuple[tuple, tuple]:
    """Unique modes of operand i and their element strides: a repeated mode (diagonal) is one mode whose stride
    is the sum of its axes' strides, and an axis of extent 1 where the mode's extent is larger broadcasts
    (stride 0)."""
    st: dict[str, int] = {}
    seen: dict[str, int] = {}
    for m, e, s in zip(modes, shape, strides, strict=True):
        if m in seen and seen[m] != e:
            raise ShapeError(f"operand {i}: mode {m!r} is repeated with extents {seen[m]} and {e}; a repeated "
                             f"mode (diagonal) needs equal extents")
        seen[m] = e
        st[m] = st.get(m, 0) + (s if e == extents[m] else 0)
    return tuple(st), tuple(st.values())


def view_geometry(modes, output, shape, strides) -> tuple[tuple, tuple] | None:
    """(shape, byte strides) of the view a one-operand einsum is, or None when it sums a mode.

    `modes` are the operand's modes (repeated for a diagonal), `output` the output modes; a repeated
    mode becomes one axis whose stride is the sum of the repeated axes' strides (`fold_modes`)."""
    if set(modes) != set(output):
        return None  # some mode is summed: a reduction, not a view
    ext = dict(zip(modes, shape, strict=True))
    um, us = fold_modes(modes, shape, strides, 0, ext)
    st = dict(zip(um, us, strict=True))
    return tuple(ext[m] for m in output), tuple(st[m] for m in output)


def make_view(x, shape, strides, backend: str):
    """A view of `x` with the given shape and byte strides, writeable when `x` is."""
    if backend == "cupy":
        from cupy.lib.stride_tricks import as_strided
        return as_strided(x, shape, strides)
    return _numpy_view(x, shape, strides)


def _numpy_view(x: np.ndarray, shape, strides) -> np.ndarray:
    # A view made through the memory's owner keeps numpy's base chain (``view.base is x.base`` as for
    # numpy's own einsum views); an owner that does not export its buffer falls back to as_strided.
    owner = x if x.base is None else x.base
    v = None
    if isinstance(owner, np.ndarray):
        offset = x.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
        try:
            v = np.ndarray(shape, x.dtype, buffer=owner, offset=offset, strides=strides)
        except (TypeError, ValueError, BufferError):
            v = None
    if v is None:
        v = np.lib.stride_tricks.as_strided(x, shape, strides, writeable=bool(x.flags.writeable))
    if not x.flags.writeable and v.flags.writeable:
        v.flags.writeable = False
    return v


def view_meets_order(v, order: str, operands, terms) -> bool:
    """Whether view `v` already has the layout `order` asks for (`order_letter` of the operands and their modes)."""
    if order == "K":
        return True
    want = order_letter(order, operands, terms)
    return bool(v.flags.c_contiguous if want == "C" else v.flags.f_contiguous)


def order_letter(order: str, operands, terms) -> str:
    """'C' or 'F' for order 'C', 'F' or 'A'. 'A' is numpy's rule: F where every operand, as numpy's einsum views it
    (its modes `terms`, a repeated mode one diagonal axis: `fold_modes`), is F-contiguous (axes of extent 1 aside,
    an empty operand contiguous), so a diagonal of extent 2 or more makes it C."""
    if order != "A":
        return order
    for modes, x in zip(terms, operands, strict=True):
        shape = tuple(x.shape)
        if 0 in shape:
            continue
        ext = dict(zip(modes, shape, strict=True))
        want = x.itemsize
        for m, s in zip(*fold_modes(tuple(modes), shape, tuple(x.strides), 0, ext), strict=True):
            if ext[m] == 1:
                continue
            if s != want:
                return "C"
            want *= ext[m]
    return "F"


# ---------------------------------------------------------------------------------------------------------
# order='K'


def k_axis_order(output, inputs, operand_strides, extents) -> tuple[int, ...]:
    """The output axes from slowest to fastest in the layout numpy's einsum allocates for order='K'.

    numpy iterates over the output modes followed by the summed modes (in label order), orders those
    axes by a stable insertion sort on the operands' strides (an axis goes before another when, in the
    first operand where both have a non-zero stride, its stride is smaller; conflicts between operands
    resolve toward C order) and lays the output out in that order. `inputs` are the operands' mode
    tuples, `operand_strides` one {mode: element stride} per operand (extent-1 axes stride 0, repeated
    modes summed)."""
    summed = sorted({m for t in inputs for m in t} - set(output), key=_label_key)
    axes = list(output) + summed
    n = len(axes)
    # numpy's axis data runs from the last iteration axis to the first; the sort puts the smallest
    # stride first in that order
    rev = list(reversed(axes))
    st = [[(d.get(m, 0) if extents[m] > 1 else 0) for d in operand_strides] for m in rev]
    perm = list(range(n))
    for i0 in range(1, n):
        j0 = perm[i0]
        ipos = i0
        for i1 in range(i0 - 1, -1, -1):
            ambiguous, swap = True, False
            for s0, s1 in zip(st[j0], st[perm[i1]], strict=True):
                if s0 and s1:
                    if abs(s1) <= abs(s0):
                        swap = False
                    elif ambiguous:
                        swap = True
                    ambiguous = False
            if not ambiguous:
                if swap:
                    ipos = i1
                else:
                    break
        if ipos != i0:
            perm.insert(ipos, perm.pop(i0))
    fastest_first = [rev[j] for j in perm if rev[j] in output]
    pos = {m: i for i, m in enumerate(output)}
    return tuple(pos[m] for m in reversed(fastest_first))


#: the subscript letters numpy's einsum_path takes
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def optimized_zero_d_array(inputs, output, shapes, optimize) -> bool:
    """Whether numpy.einsum's optimized path gives a 0-d result as a 0-d array rather than a numpy scalar: its path
    (numpy.einsum_path for `optimize`, on stand-ins of `shapes`) ends with two operands that share a summed mode whose
    extent is not 1 in either, 0 included (numpy multiplies those by matmul and reshapes the product to ()); a last
    step of one operand, or of two that share none (a product, modes of extent 1 being dropped first), gives a
    scalar. An intermediate's extent of a mode is the one its operands broadcast to.
    `inputs`: each operand's modes (ellipses expanded)."""
    modes = list(dict.fromkeys(m for t in inputs for m in t))
    if len(modes) > len(_LETTERS):
        return False
    letter = dict(zip(modes, _LETTERS, strict=False))
    eq = ",".join("".join(letter[m] for m in t) for t in inputs) + "->" + "".join(letter[m] for m in output)
    stand_ins = [np.broadcast_to(np.zeros(()), tuple(s)) for s in shapes]
    try:
        path = np.einsum_path(eq, *stand_ins, optimize=optimize)[0][1:]
    except (ValueError, TypeError):  # (a path numpy would refuse: the scalar, as numpy's plain einsum gives)
        return False
    ext = [dict(zip(t, (int(e) for e in sh), strict=True)) for t, sh in zip(inputs, shapes, strict=True)]
    names = [set(t) for t in inputs]  # (each operand's modes, then each intermediate's)
    for j, step in enumerate(path):
        order = sorted(step, reverse=True)
        taken, taken_names = [ext.pop(i) for i in order], [names.pop(i) for i in order]
        if j == len(path) - 1:
            return len(taken) == 2 and any(taken[0][m] != 1 and taken[1][m] != 1
                                           for m in taken[0].keys() & taken[1].keys() if m not in output)
        kept = set().union(*taken_names) & set(output).union(*names)
        names.append(kept)
        ext.append({m: next((t[m] for t in taken if t.get(m, 1) != 1), 1) for m in kept})
    return False


def empty_in_order(xp, shape, dtype, axes_slow_to_fast):
    """An uninitialised array of `shape` whose memory runs over the axes in the given order; a numpy array owns its
    memory (as numpy's einsum results do: `resize` works), not a transposed view of it."""
    inner = xp.empty(tuple(shape[a] for a in axes_slow_to_fast), dtype=dtype)
    inverse = [0] * len(axes_slow_to_fast)
    for i, a in enumerate(axes_slow_to_fast):
        inverse[a] = i
    view = inner.transpose(inverse)
    # (numpy's empty_like under order='K' keeps a dense permuted array's strides but may change an extent-1 axis's,
    #  which numpy's einsum keeps: with such an axis the view is returned; np.empty's untouched pages cost nothing)
    return np.empty_like(view, order="K") if xp is np and min(view.shape, default=0) > 1 else view


def _label_key(m: str):
    # ellipsis modes ("...0") never reach the summed set; letters sort as numpy's char codes
    return (0, m) if not m.startswith("...") else (1, m)
