"""The CPU executor: runs a Plan on numpy arrays through the layout maps.

Every operand is read (and the output written) through the plan's layout maps. Where the maps of a GEMM
dimension nest as mixed-radix digits (`layouts.emulate.dim_digits`: always, for maps built from tensor
modes), each operand becomes a strided numpy view with one axis per digit, and nothing is gathered:

1. a digit on which an operand's map does not move (stride 0: a mode the operand does not have, or a
   broadcast view) is not an axis of that operand; a k digit only one input moves on is summed in that
   input first (the other input is constant along it), one neither moves on multiplies by its extent;
2. the batched GEMM of what is left is numpy's matmul on those views; an input whose digits do not merge
   into one matrix axis, whose strides BLAS cannot take or whose type is not the accumulate type (cast
   there by the executor: an input without op whose values that type holds exactly) is copied a block of
   at most COPY_BLOCK bytes at a time, each block's product written into its part of the result, so the
   peak stays near numpy's einsum's, which reads such views in place;
3. alpha, beta * op_c(C) and op_d, then the result is written through D's view.

The executor runs the plan on the operands' own layouts: the stagings a GPU schedule puts around its core
(packs, split-K, folds) are not planned for it (plan/cache.py's executor_stages); `backends.staged.run`
runs them on numpy arrays around this executor where a test asks.

Maps that do not nest (none the planner builds today) and semirings (whose ⊗ need not distribute over ⊕,
so nothing is summed first) are gathered through the maps (`gather_matrix`) in blocks of k. Only the
arithmetic is numpy's (matmul; its einsum for a stack of dot products): which elements meet comes from the
plan's maps alone, so this executor is the end-to-end check of the planner and the layouts, and the
executor on machines without a GPU.
"""
from __future__ import annotations

import math

import numpy as np

from ..dtypes import NUMPY_ACCUMULATE, accumulate_type, round_tf32
from ..layouts.emulate import digit_strides, dim_digits, gather_matrix, scatter_matrix, strided_view
from ..plan.plan import Plan

_DIMS = {"A": ("b", "m", "k"), "B": ("b", "k", "n"), "D": ("b", "m", "n")}


def execute(plan: Plan, a: np.ndarray, b: np.ndarray, c: np.ndarray | None, d: np.ndarray,
            alpha=1.0, beta=0.0) -> None:
    """D = op_d(alpha * op_a(A) op_b(B) + beta * op_c(C)), written into `d` in place."""
    acc = _accumulate(plan, d)
    ka, kb = (b, a) if plan.part.swapped else (a, b)
    if d.size == 0:
        return
    # (1) and (2): the product of the kernel's A and B (see the module docstring)
    digits = None if plan.problem.semiring is not None else _digits(plan, c is not None and beta != 0)
    if digits is None:
        r = _gathered_product(plan, ka, kb, acc)
    else:
        dv = _view(d, plan.layout_d, _DIMS["D"], digits)[0]
        direct = (alpha == 1 and (c is None or beta == 0) and plan.ops[3].is_identity and d.dtype == acc
                  and not np.may_share_memory(d, ka) and not np.may_share_memory(d, kb))
        r = _viewed_product(plan, ka, kb, acc, digits, dv if direct else None)
        if r is None:  # (the product was written into D's view)
            return
    if alpha != 1:
        r = r * np.asarray(alpha).astype(acc)
    # (3) epilogue: beta * op_c(C), op_d, conversion to the output type
    if c is not None and beta != 0:
        gc = plan.ops[2](_read(c, plan.layout_c, digits, acc))
        r = r + np.asarray(beta).astype(acc) * gc
    r = plan.ops[3](r)
    if np.iscomplexobj(r) and d.dtype.kind != "c":  # (a real D keeps the real part; einsum gave numpy's warning)
        r = r.real
    # (4) write through the output's map
    if digits is None:
        scatter_matrix(d, plan.layout_d, ("b", "m", "n"), r.astype(d.dtype, copy=False))
    else:
        # (r broadcasts along the digits neither input moves on; an op or alpha on a 0-d product gives a
        #  numpy scalar, which plain assignment refuses to wrap into a narrow integer type: cast as astype)
        np.copyto(dv, r, casting="unsafe")


def _accumulate(plan: Plan, d: np.ndarray):
    """The numpy type the product is computed in: the plan's accumulate type, except that an integer
    problem without ops whose D is a narrower integer type computes in D's type. Integer sums, products
    and the final cast all wrap modulo 2**bits, so the bits D keeps are the same either way, and the
    inputs are not widened to 64 bits (8 times an int8 operand's memory)."""
    acc = NUMPY_ACCUMULATE[accumulate_type(plan.problem.compute)]
    if (np.dtype(acc).kind in "iu" and d.dtype.kind in "iu" and d.dtype.itemsize < np.dtype(acc).itemsize
            and plan.problem.semiring is None and all(op is None or op.is_identity for op in plan.ops)):
        return d.dtype.type
    return acc


def _digits(plan: Plan, with_c: bool) -> dict | None:
    """Per GEMM dimension, the place values every operand's map of it is linear on, or None."""
    lays = [plan.layout_a, plan.layout_b, plan.layout_d] + ([plan.layout_c] if with_c else [])
    out = {}
    for dim in ("b", "m", "n", "k"):
        maps = [lay.dim(dim) for lay in lays if dim in dict(lay.dims)]
        if maps and maps[0].extent == 0:
            return None
        pts = dim_digits(maps) if maps else (1,)
        if pts is None:
            return None
        out[dim] = pts
    return out


def _view(arr: np.ndarray, layout, dims: tuple[str, ...], digits: dict):
    """(view of `arr` with one axis per digit of `dims`, slowest digit first within each dimension; the
    digits' strides). A dimension `layout` lacks gets stride-0 digits."""
    shape, strides = [], []
    have = dict(layout.dims)
    for dim in dims:
        pts = digits[dim]
        st = digit_strides(have[dim], pts) if dim in have else (0,) * (len(pts) - 1)
        for i in reversed(range(len(pts) - 1)):
            shape.append(pts[i + 1] // pts[i])
            strides.append(st[i])
    return strided_view(arr, tuple(shape), tuple(strides)), tuple(strides)


def _read(arr: np.ndarray, layout, digits: dict | None, acc) -> np.ndarray:
    """An operand of the epilogue (C) in the accumulate type: its (b, m, n) gather, or its digit view with
    the digits it does not move on kept as length-1 axes (they broadcast)."""
    if digits is None:
        return gather_matrix(arr, layout, ("b", "m", "n")).astype(acc, copy=False)
    v, st = _view(arr, layout, _DIMS["D"], digits)
    v = v[tuple(slice(None) if s else slice(0, 1) for s in st)]
    return v.astype(acc, copy=False)


def _operand(arr, layout, op, acc, digits, tf32):
    """(op(operand) in the accumulate type as a digit view, the digits it moves on as a bool per axis)."""
    v, st = _view(arr, layout, _DIMS[layout.name], digits)
    moves = tuple(bool(s) for s in st)
    v = v[tuple(slice(None) if m else 0 for m in moves)]  # (the digits it does not move on dropped)
    if op.is_identity and not tf32 and np.dtype(acc).kind in "iufc" and np.can_cast(v.dtype, acc, "safe"):
        # (an input without op whose values the accumulate type holds exactly: cast by the sums and the
        #  product's copies, a block at a time, never as a whole copy of the input)
        return v, moves
    v = op.on_input(v, acc)
    if tf32:  # the tensor cores' TF32 inputs (3xtf32 is close to float32)
        v = round_tf32(v)
    return np.asarray(v), moves


def _viewed_product(plan: Plan, ka, kb, acc, digits: dict, into: np.ndarray | None = None):
    """The batched GEMM of the kernel's A and B read through digit views (module docstring), shaped as D's
    digit view with length 1 along the digits neither input moves on (it broadcasts there); or None where
    it was written straight into `into` (D's digit view, given where nothing follows the product)."""
    tf32 = plan.problem.compute == "tf32"
    va, ma = _operand(ka, plan.layout_a, plan.ops[0], acc, digits, tf32)
    vb, mb = _operand(kb, plan.layout_b, plan.ops[1], acc, digits, tf32)
    nd = {dim: len(digits[dim]) - 1 for dim in ("b", "m", "n", "k")}
    ext = {dim: [digits[dim][i + 1] // digits[dim][i] for i in reversed(range(nd[dim]))] for dim in nd}
    # axis labels, slowest digit first within each dimension
    la = [("b", i) for i in range(nd["b"])] + [("m", i) for i in range(nd["m"])] + [("k", i) for i in range(nd["k"])]
    lb = [("b", i) for i in range(nd["b"])] + [("k", i) for i in range(nd["k"])] + [("n", i) for i in range(nd["n"])]
    ha = [lab for lab, m in zip(la, ma, strict=True) if m]
    hb = [lab for lab, m in zip(lb, mb, strict=True) if m]
    # (1) k digits one input moves on and the other not: summed in that input; neither: a factor
    count = math.prod(e for i, e in enumerate(ext["k"]) if ("k", i) not in ha and ("k", i) not in hb)
    ka_only = [i for i, lab in enumerate(ha) if lab[0] == "k" and lab not in hb]
    kb_only = [i for i, lab in enumerate(hb) if lab[0] == "k" and lab not in ha]
    if ka_only:
        va = va.sum(axis=tuple(ka_only), dtype=acc)  # (in acc: bool sums are or, as the product's)
        ha = [lab for i, lab in enumerate(ha) if i not in ka_only]
    if kb_only:
        vb = vb.sum(axis=tuple(kb_only), dtype=acc)
        hb = [lab for i, lab in enumerate(hb) if i not in kb_only]
    # (2) each input as (b digits..., rows, cols), a digit it lacks as a length-1 axis
    out = [ext["b"][i] if ("b", i) in ha or ("b", i) in hb else 1 for i in range(nd["b"])]
    out += [ext["m"][i] if ("m", i) in ha else 1 for i in range(nd["m"])]
    out += [ext["n"][i] if ("n", i) in hb else 1 for i in range(nd["n"])]
    labels = [(dim, i) for dim in ("b", "m", "n") for i in range(nd[dim])]
    dot = all(lab not in ha for lab in labels[nd["b"]:]) and all(lab not in hb for lab in labels[nd["b"]:])
    if dot or (_matrix(va, ha, nd, "m", "k", acc) is not None and _matrix(vb, hb, nd, "k", "n", acc) is not None):
        ga = _matrix(va, ha, nd, "m", "k", acc, True, dot)
        gb = _matrix(vb, hb, nd, "k", "n", acc, True, dot)
        if into is not None and count == 1 and tuple(out) == into.shape and _matmul_into(ga, gb, into, nd["b"]):
            return None
        r = _matmul(ga, gb, acc=acc)
        if count != 1:
            r *= np.asarray(count).astype(acc)
        return r.reshape(out)
    # an input BLAS cannot read in place: copied in blocks, each block's product written into its part of the
    # result (D's view where nothing follows the product)
    direct = into is not None and count == 1 and tuple(out) == into.shape
    r = into if direct else np.empty(out, dtype=acc)
    budget = max(COPY_BLOCK, r.size * r.itemsize // (4 if direct else 8))
    _blocked_product(va, ha, vb, hb, r, labels, nd, acc, budget)
    if direct:
        return None
    if count != 1:
        r *= np.asarray(count).astype(acc)  # (wrapped into a narrow integer type as the sum would be)
    return r


#: bytes of an input's block the CPU executor copies at once where BLAS cannot read the input in place (its
#: strides do not merge into a matrix, neither matrix axis is unit-stride, or it is cast): the larger of this
#: and a quarter of the result (an eighth where the result is a temporary beside D), so that the copies stay
#: within numpy einsum's peak (which reads such views in place) and each block is a GEMM of many rows
COPY_BLOCK = 1 << 18
#: rows (m or n values) a block keeps at least, where a k digit can be cut instead: a GEMM of fewer rows
#: re-reads the other input once per block
MIN_BLOCK_ROWS = 64


def _matrix(v: np.ndarray, have: list, nd: dict, rows: str, cols: str, acc, copy: bool = False, dot: bool = False):
    """Input digit view `v` (axes labelled `have`) as (b digits..., rows, cols), a digit it lacks a length-1
    axis: a view BLAS reads in place (of type `acc`; any strides and type for a stack of dot products, `dot`,
    which numpy's einsum reads and casts in place), else a C-contiguous copy in `acc` with `copy`, or None."""
    lead = [v.shape[have.index(("b", i))] if ("b", i) in have else 1 for i in range(nd["b"])]
    sides = [[v.shape[have.index((dim, i))] if (dim, i) in have else 1 for i in range(nd[dim])]
             for dim in (rows, cols)]
    v = v.reshape(lead + sides[0] + sides[1])  # (a view: length-1 axes where a digit is missing)
    shape = lead + [math.prod(sides[0]), math.prod(sides[1])]
    try:
        m = _unit_strides(np.reshape(v, shape, copy=False)) if v.size else v.reshape(shape)
    except ValueError:  # (the digits do not merge in place)
        return np.ascontiguousarray(v, dtype=acc).reshape(shape) if copy else None
    if dot or (m.dtype == acc and (m.ndim < 2 or m.size == 0 or _blas_strides(m))):
        return m
    return np.ascontiguousarray(m, dtype=acc) if copy else None


def _blas_strides(v: np.ndarray) -> bool:
    """Whether one of the last two axes of `v` is unit-stride and the other positive (BLAS reads it in place)."""
    s1, s2 = v.strides[-2:]
    item = v.itemsize
    return (s2 == item and s1 >= item * v.shape[-1]) or (s1 == item and s2 >= item * v.shape[-2])


def _blocked_product(va, ha: list, vb, hb: list, r: np.ndarray, labels: list, nd: dict, acc, budget: int,
                     add: bool = False) -> None:
    """r[...] = (r + with `add`) the batched GEMM of the input digit views `va` (b, m, k digits in `ha`) and
    `vb` (b, k, n in `hb`), `r`'s axes the b, m, n digits (`labels`). Each input BLAS cannot read in place
    and larger than `budget` bytes (in the accumulate type) is cut along a b digit, else its slowest m (n)
    digit while blocks keep MIN_BLOCK_ROWS rows, else a k digit of both inputs (the blocks' products
    summed); then each block is copied (`_matrix`) and multiplied."""
    item = np.dtype(acc).itemsize
    cut = None
    for v, have, dims in ((va, ha, "m"), (vb, hb, "n")):
        size = v.size * item
        if size <= budget or _matrix(v, have, nd, "m" if dims == "m" else "k", "k" if dims == "m" else "n",
                                     acc) is not None:
            continue
        ext = {lab: v.shape[i] for i, lab in enumerate(have) if v.shape[i] > 1}
        bs = [lab for lab in ext if lab[0] == "b"]
        rows = [lab for lab in ext if lab[0] == dims]
        ks = [lab for lab in ext if lab[0] == "k"]
        if bs:
            cut = bs[0]
        elif rows:
            cut = rows[0]
            rest = math.prod(ext[lab] for lab in rows[1:])
            if ks and budget * ext[cut] // size * rest < min(ext[cut] * rest, MIN_BLOCK_ROWS):
                cut = ks[0]
        elif ks:
            cut = ks[0]
        if cut is not None:
            step = max(1, budget * ext[cut] // size)
            n = ext[cut]
            break
    if cut is None:
        ga = _matrix(va, ha, nd, "m", "k", acc, True)
        gb = _matrix(vb, hb, nd, "k", "n", acc, True)
        shape = r.shape[:nd["b"]] + (ga.shape[-2], gb.shape[-1])
        try:
            target = _unit_strides(np.reshape(r, shape, copy=False))
        except ValueError:
            target = None
        if not add and target is not None and _blas_strides(target) and target.dtype == acc:
            _matmul(ga, gb, target)
        elif add:
            r += _matmul(ga, gb).reshape(r.shape)
        else:
            r[...] = _matmul(ga, gb).reshape(r.shape)
        return
    for i in range(0, n, step):
        part = slice(i, min(n, i + step))

        def sub(v, have, part=part):
            return v[tuple(part if lab == cut else slice(None) for lab in have)] if cut in have else v

        _blocked_product(sub(va, ha), ha, sub(vb, hb), hb, sub(r, labels), labels, nd, acc, budget,
                         add or (cut[0] == "k" and i > 0))


def _matmul_into(ga: np.ndarray, gb: np.ndarray, into: np.ndarray, nb: int) -> bool:
    """Write ga @ gb into `into` (D's digit view) when its m and n digits merge into a matrix BLAS can
    write (rows or columns unit-stride; the transposed product for the latter): no result temporary."""
    shape = into.shape[:nb] + (ga.shape[-2], gb.shape[-1])
    try:
        target = np.reshape(into, shape, copy=False)
    except ValueError:  # (the digits do not merge in place)
        return False
    target = _unit_strides(target)
    item = target.itemsize
    s1, s2 = target.strides[-2:]
    if s2 == item and s1 >= item * shape[-1]:
        _matmul(ga, gb, target, target.dtype)
    elif s1 == item and s2 >= item * shape[-2]:
        _matmul(np.swapaxes(gb, -1, -2), np.swapaxes(ga, -1, -2), np.swapaxes(target, -1, -2), target.dtype)
    else:
        return False
    return True


def _matmul(ga: np.ndarray, gb: np.ndarray, out: np.ndarray | None = None, acc=None) -> np.ndarray:
    """ga @ gb (stacked); a stack of dot products (1 x K times K x 1) as one pass of numpy's sum of products
    over the views (a BLAS call per stack entry costs more than the dot itself)."""
    if ga.shape[-2] == 1 and gb.shape[-1] == 1 and ga.shape[-1] > 1:
        shape = np.broadcast_shapes(ga.shape[:-2], gb.shape[:-2]) + (1, 1)
        r = _dots(ga[..., 0, :], gb[..., :, 0], acc or np.result_type(ga, gb))
        if out is None:
            return np.asarray(r).reshape(shape)
        out[...] = np.asarray(r).reshape(shape)
        return out
    kw = {} if acc is None else {"dtype": acc, "casting": "unsafe"}
    return np.matmul(ga, gb, **kw) if out is None else np.matmul(ga, gb, out=out, **kw)


#: values of k a stacked dot product sums in sequence (numpy's sum of products, whose floating-point error grows
#: with the count) before the blocks' sums are added pairwise (numpy's reduction along a contiguous axis)
DOT_BLOCK = 4096


def _dots(a: np.ndarray, b: np.ndarray, dtype) -> np.ndarray:
    """sum_k a[..., k] * b[..., k] in `dtype` (the inputs cast to it as astype does), broadcasting the leading axes;
    a floating sum over more than DOT_BLOCK values in blocks of DOT_BLOCK whose sums are added pairwise."""
    kw = {"dtype": dtype, "casting": "unsafe"}
    k = a.shape[-1]
    if k <= DOT_BLOCK or np.dtype(dtype).kind not in "fc":
        return np.einsum("...k,...k->...", a, b, **kw)
    whole = k - k % DOT_BLOCK

    def blocks(x):  # (a view: one axis of one stride cut in two)
        return x[..., :whole].reshape(x.shape[:-1] + (whole // DOT_BLOCK, DOT_BLOCK))

    r = np.einsum("...jk,...jk->...j", blocks(a), blocks(b), **kw).sum(axis=-1)
    if whole < k:
        r = r + np.einsum("...k,...k->...", a[..., whole:], b[..., whole:], **kw)
    return r


def _unit_strides(v: np.ndarray) -> np.ndarray:
    """`v` with the strides of its last two axes canonical where an axis has length 1 (the same elements)."""
    (m, n), (s1, s2), item = v.shape[-2:], v.strides[-2:], v.itemsize
    if n == 1:
        s2 = item
    if m == 1:
        s1 = item * n if s2 == item else item
    if (s1, s2) == v.strides[-2:]:
        return v
    return np.lib.stride_tricks.as_strided(v, strides=v.strides[:-2] + (s1, s2), writeable=v.flags.writeable)


#: elements of a k block the gathered product materialises at once: each gathered operand block, and a
#: semiring's (b, m, k-block, n) product
GATHER_BLOCK = 1 << 20


def _gathered_product(plan: Plan, ka, kb, acc) -> np.ndarray:
    """The (b, m, n) product of the operands gathered through their maps (semirings; maps that are not digits),
    in blocks of k: no block of an operand (a stride-0 one included) or of a semiring's products exceeds
    GATHER_BLOCK elements, beside the (b, m, n) result."""
    op_a, op_b = plan.ops[0], plan.ops[1]
    sr = plan.problem.semiring
    nb, m, n, k = plan.batch, plan.M, plan.N, plan.K
    r = np.full((nb, m, n), 0 if sr is None else sr.zero, dtype=acc)
    per_k = max(1, nb * m * n) if sr is not None else max(1, nb * m, nb * n)
    step = max(1, GATHER_BLOCK // per_k)
    for k0 in range(0, k, step):
        window = ("k", k0, min(k, k0 + step))
        ga = op_a.on_input(gather_matrix(ka, plan.layout_a, ("b", "m", "k"), window), acc)
        gb = op_b.on_input(gather_matrix(kb, plan.layout_b, ("b", "k", "n"), window), acc)
        if plan.problem.compute == "tf32":
            ga, gb = round_tf32(ga), round_tf32(gb)
        if sr is None:
            r += np.matmul(ga, gb)
        else:
            prod = sr.numpy_mul(ga[:, :, :, None], gb[:, None, :, :]).astype(acc, copy=False)
            r = sr.numpy_add(r, sr.reduce(prod, axis=2))
    return r
