"""numpy-signature `tensordot` and `transpose`, so that opt_einsum can use gettpy as a backend:
``opt_einsum.contract("ij,jk->ik", a, b, backend="gettpy")``; and `contract_expression`, opt_einsum's
plan-once-run-many for multi-operand expressions with every pairwise step run by gettpy."""
from __future__ import annotations

import string

from .einsum import einsum
from .errors import ShapeError
from .interop import to_native, wrapper_for


def transpose(a, axes=None):
    """A permuted view, like numpy.transpose (no data moves)."""
    wrap = wrapper_for(a)
    x = to_native(a)
    return wrap(x.transpose(axes) if axes is not None else x.transpose())


def tensordot(a, b, axes=2):
    """numpy.tensordot through one GETT contraction (no transposes)."""
    na, nb = a.ndim, b.ndim
    if isinstance(axes, int):
        if axes < 0 or axes > min(na, nb):
            raise ShapeError(f"tensordot: axes={axes} exceeds the operands' ranks {na} and {nb}")
        ax_a, ax_b = list(range(na - axes, na)), list(range(axes))
    else:
        ax_a, ax_b = axes
        ax_a = [ax_a] if isinstance(ax_a, int) else list(ax_a)
        ax_b = [ax_b] if isinstance(ax_b, int) else list(ax_b)
        if len(ax_a) != len(ax_b):
            raise ShapeError(f"tensordot: {len(ax_a)} axes of A but {len(ax_b)} axes of B")
    ax_a = [x % na for x in ax_a]
    ax_b = [x % nb for x in ax_b]
    letters = iter(string.ascii_letters)
    sa = [next(letters) for _ in range(na)]
    sb = [next(letters) for _ in range(nb)]
    for i, j in zip(ax_a, ax_b, strict=True):
        if a.shape[i] != b.shape[j]:
            raise ShapeError(f"tensordot: axis {i} of A has extent {a.shape[i]} but axis {j} of B has {b.shape[j]}")
        sb[j] = sa[i]
    out = [s for i, s in enumerate(sa) if i not in ax_a] + [s for j, s in enumerate(sb) if j not in ax_b]
    return einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b)


def contract_expression(subscripts: str, *shapes, optimize="auto", **kwargs):
    """opt_einsum's ContractExpression with gettpy as the backend of every step.

    The returned object is called with the operands: ``expr(a, b, c)``; the path is found once.
    """
    import opt_einsum as oe

    expr = oe.contract_expression(subscripts, *shapes, optimize=optimize, **kwargs)

    def run(*arrays, **kw):
        return expr(*arrays, backend="gettpy", **kw)

    run.expression = expr
    return run
