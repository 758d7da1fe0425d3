"""numpy-signature `tensordot` and `transpose`, so that opt_einsum can use gettpy as a backend:
``opt_einsum.contract("ij,jk->ik", a, b, backend="gettpy")``; `einsum_path`, numpy's, for the pairwise order
gettpy's einsum takes; and `contract_expression`: plan once, run many times for multi-operand expressions
(opt_einsum's path, gettpy's einsum with its cached plans and consumer-aware intermediates)."""
from __future__ import annotations

import operator
import string
from types import SimpleNamespace

import numpy as np

from .einsum import _resolve_extents, einsum, pairwise_path
from .errors import ArgumentError, AxisError, OptionError, ShapeError
from .interop import to_native, wrapper_for
from .subscripts import decode_subscripts, parse, split_operands


def transpose(a, axes=None):
    """A permuted view, like numpy.transpose (no data moves)."""
    wrap = wrapper_for(a)
    x = to_native(a)
    return wrap(x.transpose(axes) if axes is not None else x.transpose())


def _as_operand(x, other):
    """`x` as an array: arrays (anything with ``ndim`` and ``shape``) pass; scalars and nested lists become
    arrays of `other`'s library (CuPy next to a CuPy array, else numpy), as numpy.tensordot takes them."""
    if hasattr(x, "ndim") and hasattr(x, "shape"):
        return x
    if hasattr(x, "__dlpack__"):  # (an object that speaks only DLPack: its array, as einsum takes it)
        return to_native(x)
    if type(other).__module__.split(".")[0] == "cupy":
        import cupy
        return cupy.asarray(x)
    return np.asarray(x)


def _axis_list(ax, what: str) -> list[int]:
    items = [ax] if not isinstance(ax, list | tuple) and not hasattr(ax, "__iter__") else list(ax)
    try:
        return [operator.index(x) for x in items]
    except TypeError:
        raise ArgumentError(f"tensordot: {what} must be ints, got {ax!r}") from None


def tensordot(a, b, axes=2):
    """numpy.tensordot through one GETT contraction (no transposes); scalars and lists are taken as numpy
    takes them (a bool `axes` as the int it is), the result is C-contiguous, and a full contraction gives a 0-d
    array, as numpy.tensordot."""
    a, b = _as_operand(a, b), _as_operand(b, a)
    na, nb = a.ndim, b.ndim
    if isinstance(axes, np.ndarray) and axes.ndim == 0 and axes.dtype.kind in "biu":
        axes = axes.item()  # (numpy takes a 0-d integer array as the int it holds)
    if isinstance(axes, int | np.integer):
        axes = max(int(axes), 0)  # (numpy contracts no axis for a negative count: an outer product)
        if axes > min(na, nb):
            raise AxisError(f"tensordot: axes={axes} exceeds the operands' ranks {na} and {nb}")
        ax_a, ax_b = list(range(na - axes, na)), list(range(axes))
    else:
        try:
            ax_a, ax_b = axes
        except TypeError:  # (not iterable: numpy's TypeError)
            raise ArgumentError(f"tensordot: axes must be an int or a pair of axis lists, got {axes!r}") from None
        except ValueError:  # (iterable, but not two items: numpy's ValueError)
            raise ShapeError(f"tensordot: axes must be an int or a pair of axis lists, got {axes!r}") from None
        ax_a, ax_b = _axis_list(ax_a, "the axes of A"), _axis_list(ax_b, "the axes of B")
        if len(ax_a) != len(ax_b):
            raise ShapeError(f"tensordot: {len(ax_a)} axes of A but {len(ax_b)} axes of B")
    for ax, n, name in ((ax_a, na, "A"), (ax_b, nb, "B")):
        for x in ax:
            if not -n <= x < n:
                raise AxisError(f"tensordot: axis {x} is out of range for {name}, which has {n} dimension(s)")
    ax_a = [x % na for x in ax_a]
    ax_b = [x % nb for x in ax_b]
    for ax, name in ((ax_a, "A"), (ax_b, "B")):
        if len(set(ax)) != len(ax):  # (numpy's rule: an axis summed twice is a mistake, not a diagonal)
            raise ShapeError(f"tensordot: the axes of {name} {ax} repeat an axis; each axis may be contracted once")
    if na + nb > len(string.ascii_letters):
        raise ShapeError(f"tensordot: A and B have {na} + {nb} dimensions; gettpy names at most "
                         f"{len(string.ascii_letters)}")
    letters = iter(string.ascii_letters)
    sa = [next(letters) for _ in range(na)]
    sb = [next(letters) for _ in range(nb)]
    for i, j in zip(ax_a, ax_b, strict=True):
        if a.shape[i] != b.shape[j]:
            raise ShapeError(f"tensordot: axis {i} of A has extent {a.shape[i]} but axis {j} of B has {b.shape[j]}")
        sb[j] = sa[i]
    out = [s for i, s in enumerate(sa) if i not in ax_a] + [s for j, s in enumerate(sb) if j not in ax_b]
    r = einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b, order="C")
    return np.asarray(r) if isinstance(r, np.generic) else r


def einsum_path(*operands, optimize="greedy"):
    """numpy.einsum_path: the order in which `einsum(*operands, optimize=optimize)` contracts the operands, two at a
    time, and a report of its cost.

    Args:
        *operands: as einsum takes them (subscripts and arrays, or the sublist form); only their shapes are read.
        optimize: as einsum's (numpy's default here, "greedy"; False: left to right; an explicit path is checked
            and returned).

    Returns:
        (path, report): the path in numpy's spelling ``["einsum_path", (i, j), ...]``, which einsum's and numpy's
        `optimize=` take, and opt_einsum's report of that order (scaling, FLOP count, largest intermediate).
    """
    import opt_einsum as oe

    operands = decode_subscripts(operands)
    _, _, values = split_operands(operands)
    shapes = [tuple(np.shape(x)) for x in values]
    subs, _ = parse(operands, [len(sh) for sh in shapes])
    ext = _resolve_extents(subs.inputs, [SimpleNamespace(shape=sh) for sh in shapes])  # (it reads shapes only)
    steps = [(0,)] if len(shapes) == 1 else pairwise_path(subs.inputs, subs.output, ext, optimize)
    modes = list(dict.fromkeys(m for t in (*subs.inputs, subs.output) for m in t))
    own = {m for m in modes if len(m) == 1 and m.isalpha()}  # (the report in the caller's letters where it can)
    fresh = (c for c in map(oe.get_symbol, range(len(modes) + len(own) + 1)) if c not in own)
    sym = {m: m if m in own else next(fresh) for m in modes}
    eq = ",".join("".join(sym[m] for m in t) for t in subs.inputs) + "->" + "".join(sym[m] for m in subs.output)
    _, info = oe.contract_path(eq, *shapes, shapes=True, optimize=[tuple(st) for st in steps])
    return ["einsum_path", *(tuple(st) for st in steps)], str(info)


def contract_expression(subscripts: str, *shapes, optimize="auto", **kwargs):
    """Plan once, contract many times: the pairwise path for `shapes` is found once (opt_einsum), and
    every call runs ``gettpy.einsum`` with that path, so the plans of all steps come from einsum's
    program cache and each intermediate is laid out for the step that consumes it.

    The returned callable takes the operands (and einsum's keywords: ``out``, ``dtype``, ``ops``, ...):
    ``expr(a, b, c)``; opt_einsum's ``backend=`` ('auto', 'numpy', 'cupy') and ``evaluate_constants=`` are
    taken too (the operands' own array module runs them). With opt_einsum's ``constants=[i, ...]`` the arrays
    at those positions of `shapes` are kept and the call takes the other operands only. ``expr.path`` is the
    path, ``expr.expression`` opt_einsum's ContractExpression (for its printed cost summary).
    """
    import opt_einsum as oe

    constants = kwargs.get("constants") or ()
    try:
        fixed = {int(i) % len(shapes): shapes[int(i)] for i in constants}
    except (TypeError, ValueError, IndexError):
        raise ArgumentError(f"contract_expression: constants={constants!r} must be positions of `shapes` (0 to "
                            f"{len(shapes) - 1}) whose entries are the constant arrays") from None
    for i, x in fixed.items():
        if not hasattr(x, "shape"):
            raise ArgumentError(f"contract_expression: constants position {i} holds {type(x).__name__} {x!r}, not an "
                                f"array")
    expr = oe.contract_expression(subscripts, *shapes, optimize=optimize, **kwargs)
    path = [tuple(step[0]) for step in expr.contraction_list]  # (the operand positions of each pair)
    if fixed:  # (opt_einsum's steps with constants start from its pre-contracted constants: plan our own path)
        every = [tuple(x.shape) if i in fixed else tuple(x) for i, x in enumerate(shapes)]
        path = [tuple(p) for p in oe.contract_path(subscripts, *every, shapes=True, optimize=optimize)[0]]
    want = [tuple(int(e) for e in sh) for i, sh in enumerate(shapes) if i not in fixed]

    def run(*arrays, backend="auto", evaluate_constants=False, **kw):
        # (opt_einsum's call keywords: the array module is the operands' own, and constants are kept as given)
        if backend not in (None, "auto", "numpy", "cupy", "gettpy"):
            raise OptionError(f"contract_expression: backend={backend!r}: gettpy runs numpy and cupy arrays on "
                              f"their own device ('auto', 'numpy', 'cupy' or 'gettpy')")
        if len(arrays) != len(want):
            raise ShapeError(f"contract_expression({subscripts!r}) takes {len(want)} operands, got {len(arrays)}")
        arrays = [x if hasattr(x, "shape") else np.asarray(x) for x in arrays]  # (lists, scalars: as einsum)
        for i, (x, sh) in enumerate(zip(arrays, want, strict=True)):
            if tuple(x.shape) != sh:
                raise ShapeError(f"operand {i}: shape {tuple(x.shape)}, the expression was built for {sh}")
        given = iter(arrays)
        every = [fixed[i] if i in fixed else next(given) for i in range(len(shapes))]
        return einsum(subscripts, *every, optimize=["einsum_path", *path], **kw)

    run.path = list(path)
    run.expression = expr
    return run
