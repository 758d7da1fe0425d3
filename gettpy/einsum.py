"""The einsum front end: numpy's einsum semantics on top of binary GETT contractions.

``einsum(subscripts, *operands)`` (or the sublist form) is turned into binary contractions:

* subscripts are parsed (`subscripts.parse`), ellipses expanded, extents checked across operands;
  an extent of 1 broadcasts against a larger one (stride 0), as in numpy;
* a mode repeated inside one operand (trace, diagonal) becomes one mode whose element stride is the
  sum of the strides: a view, never a copy;
* one operand: contracted against a 0-d one (every mode of the operand not in the output is summed
  in the GEMM's K loop); two operands: one GETT contraction; three or more: the pairwise order of
  opt_einsum's `contract_path`, each step a GETT contraction into a fresh intermediate;
* numpy arrays run on the CPU executor, CuPy arrays on the GETT kernel.
"""
from __future__ import annotations

import contextlib
import operator
import threading
import warnings
from dataclasses import dataclass

import numpy as np

from . import backends
from .dtypes import (
    TF32_MODES,
    check_gpu,
    check_ops,
    looser_casting,
    numpy_dtype,
    resolve,
    short_name,
    user_dtype,
    warn_complex_to_real,
)
from .errors import (
    ArgumentError,
    DtypeError,
    GettpyError,
    LayoutError,
    OpError,
    OpTypeError,
    PathError,
    PathIndexError,
    ShapeError,
)
from .interop import caller_stream, to_native, wrapper_for
from .layouts.descriptor import pointer_alignment, self_overlapping
from .ops import Op, as_op, as_semiring, identity
from .plan.cache import cached_schedule
from .plan.problem import ContractionProblem, TensorInfo
from .plan.schedule import Schedule
from .semantics import (
    check_casting,
    check_optimize,
    check_order,
    empty_in_order,
    fold_modes,
    k_axis_order,
    make_view,
    optimized_zero_d_array,
    order_letter,
    view_geometry,
    view_meets_order,
)
from .subscripts import decode_subscripts, parse, split_operands

_NUMPY_OPTIONS = ("order", "casting")


def _as_array(x, backend: str):
    """`x` as an array of the backend's library (scalars and lists become arrays)."""
    return backends.xp_of(backend).asarray(x)


def _element_strides(x, i) -> list[int]:
    """Element strides of array `x` (0 for extent-1 dimensions); `i` names it in errors (index or text)."""
    what = f"operand {i}" if isinstance(i, int) else i
    out = []
    for d, (e, s) in enumerate(zip(x.shape, x.strides, strict=True)):
        if e > 1 and s % x.itemsize:
            raise LayoutError(f"{what}: stride {s} bytes of dimension {d} is not a whole number of "
                              f"{x.itemsize}-byte elements")
        out.append(s // x.itemsize if e > 1 else 0)
    return out


def _check_no_self_overlap(x, what: str) -> None:
    """Refuse an output whose elements overlap (broadcast or overlapping strides)."""
    if self_overlapping(tuple(x.shape), _element_strides(x, what)):
        raise LayoutError(f"{what}: its strides {tuple(x.strides)} make distinct elements share memory; "
                          f"gettpy cannot write such an output")


def _resolve_extents(inputs, arrays) -> dict[str, int]:
    """Extent of each mode across operands; 1 broadcasts, anything else must agree."""
    ext: dict[str, int] = {}
    first: dict[str, int] = {}
    for i, (modes, x) in enumerate(zip(inputs, arrays, strict=True)):
        for m, e in zip(modes, x.shape, strict=True):
            if m not in ext or ext[m] == 1:
                if m in ext and ext[m] == 1 and e != 1:
                    first[m] = i
                elif m not in ext:
                    first[m] = i
                ext[m] = e if m not in ext or e != 1 else ext[m]
            elif e != ext[m] and e != 1:
                name = "'...'" if m.startswith("...") else repr(m)
                raise ShapeError(f"mode {name}: operand {first[m]} has extent {ext[m]} but operand {i} has "
                                 f"extent {e} (extents must agree or be 1)")
    return ext


def _result_dtype(arrays, dtype, out, casting="safe", optimize=False):
    """`dtypes.resolve`'s Resolution of the call: numpy's promotion over the operands, `dtype=` and `out` under
    numpy's `casting` rule; with an `optimize` that numpy takes for its optimized path (`numpy_optimized`), an `out`
    the result does not cast to under `casting` takes the values that survive the cast (Resolution.exact)."""
    return resolve([x.dtype for x in arrays], dtype, None if out is None else out.dtype, casting,
                   exact_out=numpy_optimized(optimize))


def numpy_optimized(optimize) -> bool:
    """Whether numpy.einsum would take its optimized path for `optimize`: True, "greedy" or "optimal" (alone or
    with a memory limit), or an explicit ``["einsum_path", ...]`` path; not False, None or gettpy's default "auto"."""
    if isinstance(optimize, list | tuple) and optimize and optimize[0] == "einsum_path":
        return True
    if isinstance(optimize, tuple) and len(optimize) == 2 and isinstance(optimize[0], str):
        optimize = optimize[0]
    if isinstance(optimize, str):
        return optimize in ("greedy", "optimal")
    return optimize is True


def _ops_for(n: int, ops) -> list[Op]:
    if ops is None:
        return [identity] * n
    single_factory = (isinstance(ops, tuple) and len(ops) > 1 and isinstance(ops[0], str)
                      and all(isinstance(v, int | float) for v in ops[1:]))  # ("leaky_relu", 0.1)
    if isinstance(ops, Op | str) or single_factory:
        raise OpTypeError(f"ops must be a sequence of one op per operand ({n}), got {ops!r}")
    try:
        ops = list(ops)
    except TypeError:
        raise OpTypeError(f"ops must be a sequence of one op per operand ({n}), got {ops!r}") from None
    if len(ops) != n:
        raise OpError(f"ops has {len(ops)} entries for {n} operand(s)")
    return [as_op(o, f"ops[{i}]") for i, o in enumerate(ops)]


def einsum(*operands, out=None, dtype=None, optimize="auto", ops=None, op_out=None, semiring=None, compute=None,
           **options):
    """Evaluate the Einstein summation convention on the operands, like numpy.einsum.

    Args:
        *operands: ``subscripts, A, B, ...`` (a str, or bytes as numpy takes them) or the sublist form
            ``A, [0, 1], B, [1, 2], [0, 2]`` (Python or numpy ints, 1-d int arrays, Ellipsis). Operands
            may be numpy, CuPy or torch arrays, Python scalars or nested lists (converted as
            ``numpy.asarray`` converts them, then promoted with the arrays as numpy.einsum does).
        out: optional output array of the result's shape; it may overlap an input. With `dtype`, `out`
            may have another dtype where `casting` allows the casts between the two both ways (numpy's
            rule: the computation runs in `dtype` and `out` receives it). A byte-swapped numpy `out` (or
            `dtype=`, or operand: ``'>f4'`` on a little-endian machine) is taken as numpy takes it: byte order
            takes no part in the type rules, and the result is computed in native order and copied into `out`
            with its bytes swapped.
        dtype: type of the result (and of the computation); for float16/bfloat16 inputs, float32
            keeps the inputs in half precision and writes a float32 result. Types follow numpy
            (`gettpy.dtypes.resolve`): the operands' and `out`'s result type, complex kept until the final
            cast into `out`, the accumulation never narrower than the result. Integer and bool operands
            run on the CPU executor with numpy's result types: integer sums wrap around in the result type
            as numpy's do, and a bool einsum is the logical or of ands; the GPU kernel takes the types in
            `gettpy.dtypes.GPU_DTYPES` (a DtypeError for CuPy arrays of others).
        optimize: opt_einsum's path strategy for three or more operands: "auto" (default) or True (the same
            path), False or None
            (left to right), a strategy name ("greedy", "optimal", "dp", "branch-2", "random-greedy",
            ...), numpy's ``(name, memory_limit)`` pair, an opt_einsum PathOptimizer, or an explicit
            path (numpy's ``["einsum_path", (0, 1), ...]`` or opt_einsum's list of tuples).
        ops: one unary op per operand (gettpy.ops names, Op objects or None), fused into the reads;
            op(x) is held in the type the operand is read in, as numpy's ``op(a)`` is (gettpy.ops).
        op_out: unary op applied to the result before it is stored.
        semiring: the arithmetic of the sum over contracted modes: None (ordinary +, ×), a name
            ("max_plus", "min_plus", "max_times", "min_times") or a gettpy.ops.Semiring
            (``gettpy.ops.semiring(...)`` builds one from CUDA expressions with numpy twins). "max_times"
            and "min_times" are semirings on non-negative values only: with a negative value, three or more
            operands give the result of the pairwise order taken, not the sum over all modes at once.
        compute: None, or for float32 operands the opt-in tensor-core modes "tf32" (inputs rounded to
            TF32, float32 accumulation) and "3xtf32" (each input split into two TF32 parts, three
            products: close to float32 accuracy). With None, a large compute-bound float32 contraction on
            an sm_90 GPU runs on the float64 tensor cores: inputs widened to float64 (exact), float64 sums,
            the result rounded to float32 once (more accurate than a float32 sum, and faster there); so does a
            long sum over a small output (in slices of K, their float64 partial sums added in float64). Other
            float32 contractions, and long sums on GPUs without float64 tensor cores, sum in float32.
        **options: numpy's ``casting`` ("no", "equiv", "safe" (default), "same_kind", "unsafe") rules
            `dtype` and `out` (numpy's optimized path, which numpy takes for optimize=True, "greedy", "optimal"
            or an explicit path, computes in the operands' type and writes its matrix products into an `out` that
            `casting` refuses unchecked, e.g. a float sum into an int64 `out`, truncated: for those values gettpy
            casts any einsum's result so, but only where every value survives the cast, else raises a
            DtypeError naming the first value that would change; pass casting="unsafe" for numpy's truncation;
            a dtype string is numpy's: 'i8' is int64);
            ``order`` sets the layout of a result einsum allocates: "C", "F", "A" (F when every operand, as
            numpy views it with a repeated mode one diagonal axis, is F-contiguous, else C) or "K" (default):
            for numpy operands the layout numpy.einsum gives (the output axes in the operands' stride order),
            for CuPy operands C order, the layout the GPU plans are tuned to write.

    Returns:
        The result array (numpy for numpy inputs, CuPy for CuPy inputs, torch for torch); `out` when given.
        As in numpy, a 0-d result of numpy operands (without `out`) is a numpy scalar (a 0-d array where
        numpy's optimized path, taken for optimize=True, "greedy", "optimal" or a path, ends in a product over
        a summed mode, as numpy's matmul step gives it), and a one-operand
        einsum that sums nothing (``'ij->ji'``, ``'ii->i'``, ``'...'``) is a view of its operand, for
        numpy and CuPy arrays alike (writeable when the operand is) unless `out`, a `dtype` other than
        the operand's (numpy would ignore that dtype), an `order` the view does not meet, or an op or
        semiring asks for a computed result.

    Raises:
        SubscriptError, ShapeError, LayoutError, OptionError (ValueError subclasses) and DtypeError,
        ArgumentError, SubscriptTypeError (TypeError subclasses): the kind numpy raises for the same
        mistake, naming the argument, operand, mode and values. object, longdouble and clongdouble
        operands raise DtypeError (gettpy computes in the GPU's number types; numpy.einsum handles them).

    A repeated call with the same subscripts, layouts, dtypes and ops finds its program (the plans of
    every step) in a bounded cache and only launches.
    """
    for k in options:
        if k not in _NUMPY_OPTIONS:
            raise ArgumentError(f"einsum() got an unexpected keyword argument {k!r}")
    options = {"order": check_order(options.get("order", "K")),
               "casting": check_casting(options.get("casting", "safe"))}
    check_optimize(optimize)
    dtype = user_dtype(dtype)  # ('i8' is numpy's int64 here, not gettpy's short name of int8)
    if isinstance(optimize, np.bool_):
        optimize = bool(optimize)
    operands = decode_subscripts(operands)
    raw = _operand_arrays(operands)
    if not raw:
        return _einsum(operands, raw, out, dtype, optimize, ops, op_out, options, lambda r: r, (semiring, compute))
    with caller_stream(raw[0]):  # torch operands: torch's current stream
        r = _einsum(operands, raw, out, dtype, optimize, ops, op_out, options, wrapper_for(raw[0]),
                    (semiring, compute))
    if out is None and isinstance(r, np.ndarray) and r.ndim == 0:
        if numpy_optimized(optimize) and _zero_d_array(operands, optimize):
            return r  # (numpy's optimized path ends in a matmul reshaped to a 0-d array)
        return r[()]  # numpy's einsum gives a 0-d result as a numpy scalar
    return r


def _zero_d_array(operands, optimize) -> bool:
    """Whether numpy's optimized path gives the 0-d result of these einsum arguments as a 0-d array
    (semantics.optimized_zero_d_array)."""
    _, _, values = split_operands(operands)
    shapes = [np.shape(x) for x in values]
    subs, _ = parse(operands, [len(sh) for sh in shapes])
    return optimized_zero_d_array(subs.inputs, subs.output, shapes, optimize)


def _einsum(operands, raw, out, dtype, optimize, ops, op_out, options, wrap, arith=(None, None)):
    raw = [to_native(x) for x in raw]
    if out is not None:
        if not hasattr(out, "shape") or not hasattr(out, "dtype") or isinstance(out, np.generic):
            raise ArgumentError(f"out must be an array (numpy, cupy or torch), got {type(out).__name__} {out!r}")
        out = to_native(out)
        if isinstance(out, np.ndarray) and not out.flags.writeable:  # (even when empty, as numpy refuses it)
            raise LayoutError("out is read-only; einsum writes its result into out")
    kinds = {backends.array_module_name(x) for x in raw if type(x).__module__.split(".")[0] in ("numpy", "cupy")}
    if len(kinds) > 1:
        raise ArgumentError("operands mix numpy and cupy arrays; move them to one device first")
    backend = kinds.pop() if kinds else "numpy"
    arrays = [_as_array(x, backend) for x in raw]
    _warn_complex_to_real(arrays, out, dtype, options["casting"])
    # (numpy's einsum raises no floating-point warnings or errors, whatever np.errstate says; the CPU executor's
    #  numpy calls would: overflow of a float16 sum, inf - inf, NaN cast into an integer `out`)
    def fp():
        return np.errstate(all="ignore") if backend == "numpy" else contextlib.nullcontext()

    try:
        with fp():
            return wrap(_run(operands, arrays, backend, out, dtype, optimize, ops, op_out, options, arith))
    except _OutShapeError as e:
        # numpy stretches an output mode of extent 1 over a longer axis of `out`: the result is computed into a
        # temporary of out's type (the same casting and computation as into `out`), then broadcast into `out`
        if len(e.shape) != out.ndim or any(r not in (1, o) for r, o in zip(e.shape, out.shape, strict=True)):
            raise ShapeError(str(e)) from None
        if out.size:
            _check_no_self_overlap(out, "out")
        xp = backends.xp_of(backend)
        tmp = xp.empty(e.shape, dtype=out.dtype)
        with fp():
            _run(operands, arrays, backend, tmp, dtype, optimize, ops, op_out, options, arith)
        xp.copyto(out, tmp)
        return wrap(out)


def _warn_complex_to_real(arrays, out, dtype, casting) -> None:
    """numpy's ComplexWarning where a complex result is written into a real `out` (casting='unsafe' allows it: the
    imaginary part is dropped)."""
    if out is None or casting != "unsafe" or np.dtype(out.dtype).kind == "c":
        return
    try:
        kind = np.dtype(dtype).kind if dtype is not None else np.result_type(*(x.dtype for x in arrays)).kind
    except TypeError:  # (a type numpy does not know, e.g. torch's: no warning)
        return
    if kind == "c":
        warn_complex_to_real(stacklevel=4)


def _run(operands, arrays, backend, out, dtype, optimize, ops, op_out, options, arith):
    """einsum on native arrays of one backend: a view, a cast into `out`, or the contraction program."""
    casting, order = options["casting"], options["order"]
    xp = backends.xp_of(backend)
    if len(arrays) == 1 and out is None and ops is None and op_out is None and arith == (None, None):
        v = _single_view(operands, arrays, dtype, order, backend)
        if v is not None:
            return v
    if casting == "no":  # (numpy's rule: 'no' allows no change of byte order between an array and the computation)
        named = [(f"operand {i}", x) for i, x in enumerate(arrays)] + ([("out", out)] if out is not None else [])
        for what, x in named:
            if not getattr(x.dtype, "isnative", True):
                raise DtypeError(f"{what}: dtype {x.dtype.str} is byte-swapped, and casting='no' allows no change of "
                                 f"byte order (numpy's rule); pass casting='equiv' or looser")
    if backend == "numpy" and (_native_twin(dtype) is not None
                               or out is not None and _native_twin(out.dtype) is not None):
        return _run_byte_swapped(operands, arrays, out, dtype, optimize, ops, op_out, options, arith)
    # byte-swapped operands (numpy's '>f8' on a little-endian machine): the same values in native order
    arrays = [x if getattr(x.dtype, "isnative", True) else x.astype(x.dtype.newbyteorder("=")) for x in arrays]
    arrays = _cast_numpy_only_operands(arrays, dtype, casting)
    _refuse_numpy_only_types(operands, arrays, dtype, out)
    if out is not None and dtype is not None and not _same_dtype(dtype, out.dtype):
        # numpy: dtype= is the type of the computation, and `out` receives it under the casting rule
        exact = not (np.can_cast(out.dtype, dtype, casting) and np.can_cast(dtype, out.dtype, casting))
        if exact and not numpy_optimized(optimize):
            _check_out_shape(out, *_output_of(operands, arrays))  # (shapes before types, as numpy checks them)
            # numpy's einsum reads and writes `out` in the computation's type: both casts must be allowed
            raise DtypeError(f"out has dtype {out.dtype} but dtype={np.dtype(dtype)}: numpy's rule asks for casts "
                             f"both ways between them under casting={casting!r} ({looser_casting(casting)})")
        shape = _output_of(operands, arrays)[0]  # (shapes before types, as numpy checks them)
        if len(shape) != out.ndim or any(e not in (1, o) for e, o in zip(shape, out.shape, strict=True)):
            raise ShapeError(f"out has shape {tuple(out.shape)} but the result has shape {tuple(shape)}")
        r = _run(operands, arrays, backend, None, dtype, optimize, ops, op_out, {**options, "order": "K"}, arith)
        if out.size:  # (an extent-1 result axis is stretched over out's by the copy, as numpy does)
            _check_no_self_overlap(out, "out")
        if exact:  # (numpy's optimized path computes in dtype= and writes `out` unchecked: taken where exact)
            _check_exact_cast(xp, xp.asarray(r), out.dtype, casting)
        xp.copyto(out, r, casting="unsafe")
        return out
    prog = _program(operands, arrays, out, dtype, optimize, ops, op_out, backend, casting, arith)
    ndim = len(prog.out_shape)
    axes = None
    if out is None and ndim > 1:
        axes = prog.k_axes if order == "K" else _result_axes(order, operands, arrays, ndim)
    if any(x.dtype != prog.in_dtype for x in arrays) and not (
            backend == "numpy" and all(np.can_cast(x.dtype, prog.in_dtype, "safe") for x in arrays)):
        # mixed input types: cast to the computation's type, then plan on the copies' own layouts (the CPU
        # executor reads inputs of any type through element strides and casts them into the accumulate type
        # a block at a time, so where every cast is exact it takes them as they are: no copy of an input)
        arrays = [x if x.dtype == prog.in_dtype else x.astype(prog.in_dtype) for x in arrays]
        prog = _program(operands, arrays, out, dtype, optimize, ops, op_out, backend, casting, arith)
    if out is not None:
        result = out
    elif axes is not None and axes != tuple(range(len(prog.out_shape))):
        # the layout `order` asks for: plan the last step for that output
        result = empty_in_order(xp, prog.out_shape, prog.out_dtype, axes)
        prog = _program(operands, arrays, result, dtype, optimize, ops, op_out, backend, casting, arith)
    else:
        result = xp.empty(prog.out_shape, dtype=prog.out_dtype)
    if result.size == 0:
        return result
    # an output sharing memory with an input is computed into a temporary, then copied
    target = result
    if prog.stage is not None:  # dtype= differs from out's type: computed in dtype=, then cast (numpy's way)
        target = xp.empty(prog.out_shape, dtype=prog.stage)
    elif out is not None and any(xp.may_share_memory(out, x) for x in arrays):
        target = xp.empty(prog.out_shape, dtype=prog.out_dtype)
        if not prog.target_packed:  # (planned for out's layout: planned again for the packed temporary)
            prog = _program(operands, arrays, target, dtype, optimize, ops, op_out, backend, casting, arith)
    _execute(prog, backend, xp, arrays, target)
    if prog.exact:
        _check_exact_cast(xp, target, result.dtype, prog.casting)
    if target is not result:
        result[...] = target.real if target.dtype.kind == "c" and result.dtype.kind != "c" else target
    return result


def _check_exact_cast(xp, value, dtype, casting: str) -> None:
    """A DtypeError (TypeError) unless every element of `value` keeps its value cast to `dtype`: the cast into an
    `out` that numpy's optimized path makes unchecked, taken only where it loses nothing. Into an integer or bool
    type a value must be finite, whole and within the type's range (a round trip would pass -1 into uint8 as 255,
    and -inf into int64 as its minimum); into a float or complex type it must come back unchanged from the cast (a
    NaN part keeps its value); a nonzero or NaN imaginary part never goes into a real type."""
    dest = np.dtype(dtype)

    def kept(v):  # (whether each element of real or complex `v` survives the cast to dtype)
        if v.dtype.kind == "c":
            if dest.kind != "c":
                return (v.imag == 0) & kept(v.real)
            back = v.astype(dest).astype(v.dtype)
            return same(v.real, back.real) & same(v.imag, back.imag)
        if dest.kind in "iub":
            return in_range(v)
        return same(v, v.astype(dest).astype(v.dtype))

    def same(v, back):
        eq = back == v
        return eq | xp.isnan(v) & xp.isnan(back) if v.dtype.kind == "f" else eq

    def in_range(v):  # (an integer or bool destination)
        lo, hi = (0, 1) if dest.kind == "b" else (int(np.iinfo(dest).min), int(np.iinfo(dest).max))
        if v.dtype.kind == "b":
            return xp.ones(v.shape, dtype=bool)
        if v.dtype.kind in "iu":  # (bounds clipped to v's own type, where numpy compares them exactly)
            own = np.iinfo(v.dtype)
            ok = xp.ones(v.shape, dtype=bool)
            if lo > own.min:
                ok &= v >= v.dtype.type(lo)
            if hi < own.max:
                ok &= v <= v.dtype.type(hi)
            return ok
        w = v.astype(np.float64)  # (float16 and float32 widen exactly; hi + 1 is a power of two float64 holds)
        return xp.isfinite(w) & (w == xp.floor(w)) & (w >= float(lo)) & (w < float(hi) + 1.0)

    with warnings.catch_warnings(), np.errstate(all="ignore"):  # (the casts that lose values are what is looked for)
        warnings.simplefilter("ignore")
        lost = ~kept(value)
    if not bool(lost.any()):
        return
    at = tuple(int(i) for i in np.unravel_index(int(xp.argmax(lost.ravel())), value.shape)) if value.ndim else ()
    raise DtypeError(f"out has dtype {dtype}, which cannot hold the result type {value.dtype} under "
                     f"casting={casting!r}: the result at {at} is {value[at].item()!r}, which {dtype} does not "
                     f"hold ({looser_casting(casting)}, or pass an out of type {value.dtype})")


def _native_twin(dtype) -> np.dtype | None:
    """The native-order twin of `dtype` when it is a byte-swapped numpy dtype (numpy's '>f4' on a little-endian
    machine), else None (native types, None, and spellings numpy does not know, e.g. torch's)."""
    if dtype is None:
        return None
    try:
        dt = np.dtype(dtype)
    except TypeError:
        return None
    return None if dt.isnative else dt.newbyteorder("=")


def _run_byte_swapped(operands, arrays, out, dtype, optimize, ops, op_out, options, arith):
    """einsum into a byte-swapped `out` or `dtype=` (numpy arrays), as numpy.einsum takes them.

    The executor computes and writes the machine's words, so the result is computed with the native twins of
    `dtype` and of `out`'s type (the same types by numpy's rules: byte order takes no part in promotion or
    casting) into a native array, which numpy then copies into `out` (or casts to `dtype=`), swapping the
    bytes of each element: the values numpy.einsum gives, and `out` untouched on any error before the copy.
    """
    twin = _native_twin(dtype)
    if out is None:
        r = _run(operands, arrays, "numpy", None, dtype if twin is None else twin, optimize, ops, op_out, options,
                 arith)
        return r if twin is None else r.astype(np.dtype(dtype))  # (numpy's result has dtype='s byte order)
    if out.size:
        _check_no_self_overlap(out, "out")  # (checked on `out` itself: its native copy is always packed)
    out_twin = _native_twin(out.dtype)
    native = out if out_twin is None else np.empty(out.shape, out_twin)
    _run(operands, arrays, "numpy", native, dtype if twin is None else twin, optimize, ops, op_out, options, arith)
    if native is not out:
        np.copyto(out, native, casting="equiv")
    return out


#: dtype chars of the types only numpy computes in: object, longdouble and clongdouble
_NUMPY_ONLY = {"O": "object", "g": "longdouble", "G": "clongdouble"}


def _cast_numpy_only_operands(arrays, dtype, casting):
    """Operands of object or extended-precision type cast to `dtype=` where `casting` allows it: numpy
    computes in `dtype`, so these operands only ever enter the contraction as that type."""
    if dtype is None or not any(x.dtype.char in _NUMPY_ONLY for x in arrays):
        return arrays
    try:
        want = np.dtype(dtype)
    except TypeError:
        return arrays
    if want.char in _NUMPY_ONLY:
        return arrays
    out = []
    for i, x in enumerate(arrays):
        if x.dtype.char in _NUMPY_ONLY:
            if not np.can_cast(x.dtype, want, casting):
                raise DtypeError(f"operand {i}: cannot cast {x.dtype} to dtype={want} under casting={casting!r} "
                                 f"(pass casting='unsafe' to allow it)")
            x = x.astype(want)
        out.append(x)
    return out


def _refuse_numpy_only_types(operands, arrays, dtype, out) -> None:
    """A clear DtypeError for object and extended-precision types (views of them pass before this);
    malformed subscripts are reported first, as numpy does."""
    found = [(f"operand {i}", x.dtype) for i, x in enumerate(arrays)]
    if out is not None:
        found.append(("out", out.dtype))
    if dtype is not None:
        try:
            found.append(("dtype=", np.dtype(dtype)))
        except TypeError:
            pass  # not a numpy dtype (bf16 spellings, or a bad one: the dtype resolver names it)
    bad = [(what, dt) for what, dt in found if getattr(dt, "char", None) in _NUMPY_ONLY]
    if bad:
        parse(_rebuild(operands, arrays))
        what, dt = bad[0]
        raise DtypeError(f"{what}: dtype {_NUMPY_ONLY[dt.char]} is not supported: gettpy contracts "
                         f"fixed-width machine number types (no Python objects, no extended precision); "
                         f"use numpy.einsum for {_NUMPY_ONLY[dt.char]} arrays")


def _same_dtype(dtype, other) -> bool:
    """Whether `dtype` (any spelling numpy or gettpy takes) is the dtype `other`."""
    try:
        return np.dtype(dtype) == np.dtype(other)
    except TypeError:
        try:
            return short_name(dtype, "dtype=") == short_name(other, "out")
        except DtypeError:
            return False


def _single_view(operands, arrays, dtype, order, backend):
    """The view a one-operand einsum that sums nothing is (numpy's and CuPy's semantics), or None.

    A `dtype` other than the operand's, or an `order` the view does not already meet, makes a copy
    instead (numpy would return the view in the operand's own dtype and layout)."""
    x = arrays[0]
    if dtype is not None and not _same_dtype(dtype, x.dtype):
        return None
    subs, _ = parse(_rebuild(operands, arrays))
    geometry = view_geometry(subs.inputs[0], subs.output, tuple(x.shape), tuple(x.strides))
    if geometry is None:
        return None
    v = make_view(x, *geometry, backend)
    return v if view_meets_order(v, order, arrays, subs.inputs) else None


def _result_axes(order, operands, arrays, ndim: int) -> tuple[int, ...] | None:
    """The result's axes from slowest to fastest for order 'C', 'F' or 'A' (None: C order)."""
    terms = parse(_rebuild(operands, arrays))[0].inputs if order == "A" else ()
    return tuple(reversed(range(ndim))) if order_letter(order, arrays, terms) == "F" else None


def _k_axes(subs, arrays, ext) -> tuple[int, ...]:
    """The result's axes from slowest to fastest for order 'K': numpy's layout for these operands."""
    strides = []
    for i, (modes, x) in enumerate(zip(subs.inputs, arrays, strict=True)):
        st: dict[str, int] = {}
        for m, s in zip(modes, _element_strides(x, i), strict=True):
            st[m] = st.get(m, 0) + s
        strides.append(st)
    return k_axis_order(subs.output, subs.inputs, strides, ext)


#: einsum's call cache: call signature -> Program (bounded, oldest entry dropped first)
_PROGRAMS: dict = {}
_PROGRAMS_LOCK = threading.Lock()
PROGRAM_CACHE_SIZE = 1024


def clear_program_cache() -> None:
    _PROGRAMS.clear()


@dataclass(frozen=True, slots=True)
class Step:
    """One binary contraction of a program: operand slots (inputs 0..n-1, -1 = the 0-d ones,
    n + j = intermediate j) and the shape of the intermediate it makes (None: the final output)."""

    plan: Schedule
    a: int
    b: int
    out_shape: tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class Program:
    """Everything einsum decides before touching data: casts, output, and the plan of every step."""

    steps: tuple[Step, ...]
    in_dtype: object
    out_shape: tuple[int, ...]
    out_dtype: object
    target_packed: bool
    one: float = 1.0
    stage: object = None  # the type the result is computed in before its cast into `out` (None: out's own)
    #: the cast of the staged result into `out` is one `casting` refuses: taken only where every value survives it
    exact: bool = False
    casting: str = "safe"
    #: the result's axes, slowest first, in numpy's order='K' layout (numpy operands; None: C order)
    k_axes: tuple[int, ...] | None = None


def _program(operands, arrays, out, dtype, optimize, ops, op_out, backend, casting, arith=(None, None)) -> Program:
    """The call's Program, from the cache or freshly compiled."""
    args = _rebuild(operands, arrays)
    key = _call_key(args, arrays, out, dtype, optimize, ops, op_out, backend, casting, arith)
    prog = _PROGRAMS.get(key) if key is not None else None
    if prog is None:
        prog = _compile(args, arrays, out, dtype, optimize, ops, op_out, backend, casting, arith)
        if key is not None:
            with _PROGRAMS_LOCK:
                if len(_PROGRAMS) >= PROGRAM_CACHE_SIZE:
                    _PROGRAMS.pop(next(iter(_PROGRAMS)))
                _PROGRAMS[key] = prog
    return prog


def _call_key(args, arrays, out, dtype, optimize, ops, op_out, backend, casting, arith=(None, None)):
    """Hashable signature of an einsum call (None when some argument is not hashable)."""
    def meta(x):
        return (type(x).__module__, tuple(x.shape), tuple(x.strides), x.dtype.str, backends.data_ptr(x) % 16)

    def typed(xs):  # (0.0 == 0 and True == 1 hash alike: a label or path entry keys with its type)
        return tuple((type(x).__name__, x) for x in xs)
    try:
        if isinstance(args[0], str):
            subs = args[0]
        else:  # sublist form: the input sublists and the output sublist (if any)
            subs = (tuple(typed(args[i]) for i in range(1, len(args), 2)),
                    typed(args[-1]) if len(args) % 2 else None)
        key = (subs, tuple(meta(x) for x in arrays), None if out is None else meta(out), dtype,
               typed([optimize]) if not isinstance(optimize, list) else
               tuple(o if isinstance(o, str) else typed(o) for o in optimize),
               None if ops is None else tuple(ops), op_out, backend, casting, arith)
        hash(key)
        return key
    except TypeError:
        return None


def _output_of(operands, arrays) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """(the result's shape, its output modes) of an einsum call (parsed; no data read)."""
    subs, _ = parse(_rebuild(operands, arrays))
    ext = _resolve_extents(subs.inputs, arrays)
    return tuple(ext[m] for m in subs.output), subs.output


class _OutShapeError(ShapeError):
    """`out` has not the result's shape (`shape`); einsum broadcasts the result into it where numpy would."""

    def __init__(self, msg: str, shape: tuple[int, ...]):
        super().__init__(msg)
        self.shape = shape


def _check_out_shape(out, out_shape: tuple[int, ...], output) -> None:
    """An _OutShapeError where `out` has not the result's shape."""
    if tuple(out.shape) != out_shape:
        raise _OutShapeError(f"out has shape {tuple(out.shape)} but the result has shape {out_shape} "
                             f"(output modes {''.join(m if len(m) == 1 else '.' for m in output)!r})", out_shape)


def _compile(args, arrays, out, dtype, optimize, ops, op_out, backend, casting, arith=(None, None)) -> Program:
    """Parse, check and plan an einsum call (no data is read or written); `arith` is (semiring, compute)."""
    subs, _ = parse(args)
    semiring, compute = arith
    sr = as_semiring(semiring)
    if compute is not None and compute not in TF32_MODES:
        raise DtypeError(f"compute={compute!r}: the opt-in compute types are {', '.join(TF32_MODES)} (float32 "
                         f"operands); leave it None for the default")
    ops_in = _ops_for(len(arrays), ops)
    op_d = as_op(op_out, "op_out")
    # shapes are checked before types, as numpy does (a call wrong in both reports its shapes)
    ext = _resolve_extents(subs.inputs, arrays)
    out_shape = tuple(ext[m] for m in subs.output)
    for i, (modes, x) in enumerate(zip(subs.inputs, arrays, strict=True)):
        fold_modes(modes, x.shape, [0] * x.ndim, i, ext)
    if out is not None:
        _check_out_shape(out, out_shape, subs.output)
    res = _result_dtype(arrays, dtype, out, casting, optimize)
    in_s, out_s, stage_s = res.inputs, res.output, res.stage
    check_ops([*((f"ops[{i}]", op) for i, op in enumerate(ops_in)), ("op_out", op_d)], in_s)
    if backend == "cupy":
        for s_ in {in_s, out_s, stage_s} - {None}:
            check_gpu(s_, "einsum on CuPy arrays")
    bf16 = next((x.dtype for x in arrays if x.dtype.name == "bfloat16"), None)
    if bf16 is None and "bf16" in (in_s, out_s, stage_s):
        bf16 = out.dtype if out is not None and out.dtype.name == "bfloat16" else numpy_dtype("bf16")
    in_dt = numpy_dtype(in_s) if in_s != "bf16" else bf16
    out_dt = numpy_dtype(out_s) if out_s != "bf16" else (bf16 if out is None else out.dtype)
    stage_dt = None if stage_s is None else numpy_dtype(stage_s) if stage_s != "bf16" else bf16
    if out is not None:
        if backends.array_module_name(out) != backend:
            raise ArgumentError(f"out is a {backends.array_module_name(out)} array but the operands are {backend}")
        if out.size:
            _check_no_self_overlap(out, "out")
    infos = []
    for i, (modes, x) in enumerate(zip(subs.inputs, arrays, strict=True)):
        um, us = fold_modes(modes, x.shape, _element_strides(x, i), i, ext)
        infos.append(TensorInfo(f"operand {i}", um, us, in_s, pointer_alignment(backends.data_ptr(x)), ops_in[i]))
    packed = out is None or _c_strides(out_shape) == tuple(_element_strides(out, "out"))
    align = 16 if out is None else pointer_alignment(backends.data_ptr(out))  # a temporary is as aligned
    if stage_s is not None:
        final = TensorInfo("output", subs.output, _c_strides(out_shape), stage_s, 16, op_d)
    elif out is None or packed:
        final = TensorInfo("output", subs.output, _c_strides(out_shape), out_s, align, op_d)
    else:
        final = TensorInfo("output", subs.output, tuple(_element_strides(out, "out")), out_s, align, op_d)
    steps = _network(infos, subs.output, ext, final, optimize, sr, compute, backend)
    k_axes = _k_axes(subs, arrays, ext) if backend == "numpy" and out is None and len(out_shape) > 1 else None
    return Program(tuple(steps), in_dt, out_shape, out_dt, packed, 1.0 if sr is None else sr.one,
                   stage=stage_dt, k_axes=k_axes, exact=res.exact, casting=casting)


def _c_strides(shape) -> tuple[int, ...]:
    """Element strides of a C-contiguous array (0 for extent-1 dimensions, as _element_strides)."""
    st, acc = [], 1
    for e in reversed(shape):
        st.append(acc if e > 1 else 0)
        acc *= e
    return tuple(reversed(st))


def _operand_arrays(operands) -> list:
    """The operands among einsum's positional arguments (cheap: subscripts are checked when compiling)."""
    if not operands:
        return list(split_operands(operands)[2])  # raises the "needs subscripts" error
    if isinstance(operands[0], str):
        return list(operands[1:])
    items = operands if len(operands) % 2 == 0 else operands[:-1]
    return list(items[0::2])


def _rebuild(operands, arrays):
    """The positional arguments with the operands replaced by their array versions."""
    if isinstance(operands[0], str):
        return (operands[0], *arrays)
    items = list(operands)
    for j, x in enumerate(arrays):
        items[2 * j] = x
    return tuple(items)


def _step(ta: TensorInfo, tb: TensorInfo, td: TensorInfo, ext, a: int, b: int, shape, sr=None,
          compute=None, backend=None) -> Step:
    ex = tuple(sorted((m, ext[m]) for m in set(ta.modes) | set(tb.modes)))
    return Step(cached_schedule(ContractionProblem(ta, tb, None, td, ex, compute or "", sr), backend), a, b, shape)


_ONES = -1


def _network(infos, output, ext, final: TensorInfo, optimize, sr=None, compute=None, backend=None) -> list[Step]:
    """The steps contracting the operands pairwise (opt_einsum's order) into the output.

    An intermediate is laid out for the step that consumes it: its fastest modes are the ones it shares
    with its partner in that step, in the partner's own order of increasing stride (so both operands
    of the next contraction run along the same modes, e.g. both k-contiguous); the remaining modes
    follow. A partner that is itself a later intermediate gives no preference (the order of
    appearance is kept).
    """
    ones = TensorInfo("ones", (), (), infos[0].dtype, 16)
    steps = _explicit_steps(optimize)
    if steps is not None:
        _check_path(steps, len(infos))  # (one or two operands: checked, then the single step runs)
    if len(infos) == 1:
        return [_step(infos[0], ones, final, ext, 0, _ONES, None, sr, compute, backend)]
    if len(infos) == 2:
        return [_step(infos[0], infos[1], final, ext, 0, 1, None, sr, compute, backend)]
    # (1) the contraction tree: which slots each step takes (intermediate j is slot n + j)
    n = len(infos)
    live, tree, waiting = list(range(n)), [], []  # waiting[j]: the slots still to contract after step j
    for pair in pairwise_path([t.modes for t in infos], output, ext, optimize):
        picked = [live[p] for p in sorted(pair)]
        for p in sorted(pair, reverse=True):
            live.pop(p)
        if len(picked) == 1:  # opt_einsum may reduce a single operand on its own
            picked.append(_ONES)
        # a step of three or more operands (explicit paths allow it): contracted pairwise, left to right
        cur, rest = picked[0], picked[1:]
        for i, other in enumerate(rest):
            tree.append((cur, other))
            waiting.append(list(live) + rest[i + 1:])
            cur = n + len(tree) - 1
        live.append(cur)
    partner = {}
    for ia, ib in tree:
        partner[ia], partner[ib] = ib, ia
    # (2) the steps, each intermediate in the layout its consumer prefers
    info = dict(enumerate(infos))
    info[_ONES] = ones
    steps = []
    for j, (ia, ib) in enumerate(tree):
        ta, tb = info[ia], info[ib]
        if j == len(tree) - 1:
            steps.append(_step(ta, tb, final, ext, ia, ib, None, sr, compute, backend))
            return steps
        keep = set(output).union(*(set(info[x].modes) for x in waiting[j]))
        modes = tuple(m for m in dict.fromkeys(ta.modes + tb.modes) if m in keep)
        modes = _consumer_order(modes, info.get(partner.get(n + j)))
        shape = tuple(ext[m] for m in modes)
        ti = TensorInfo(f"intermediate {j}", modes, _c_strides(shape), infos[0].dtype, 16)
        info[n + j] = ti
        steps.append(_step(ta, tb, ti, ext, ia, ib, shape, sr, compute, backend))
    raise GettpyError("contraction path did not end in one tensor")  # pragma: no cover


def _consumer_order(modes: tuple[str, ...], partner: TensorInfo | None) -> tuple[str, ...]:
    """`modes` (C order: last fastest) with the modes shared with `partner` fastest, in partner's order."""
    if partner is None:
        return modes
    st = partner.stride_of()
    shared = sorted((m for m in modes if st.get(m)), key=lambda m: abs(st[m]))  # partner's fastest first
    rest = tuple(m for m in modes if m not in shared)
    return rest + tuple(reversed(shared))


def _execute(prog: Program, backend: str, xp, arrays, target) -> None:
    """Run the program's steps on the arrays; the last step writes `target`."""
    slots = {i: x for i, x in enumerate(arrays)}
    if any(_ONES in (st.a, st.b) for st in prog.steps):
        slots[_ONES] = xp.full((), prog.one, dtype=prog.in_dtype)  # the semiring's one
    n = len(arrays)
    for j, st in enumerate(prog.steps):
        d = target if st.out_shape is None else xp.empty(st.out_shape, dtype=prog.in_dtype)
        if st.b == _ONES and st.plan.problem.semiring is None and np.dtype(prog.in_dtype).kind == "c":
            backends.execute_sum(backend, st.plan, slots[st.a], d)  # (a complex x (1 + 0i) is not x at inf)
        else:
            backends.execute(backend, st.plan, slots[st.a], slots[st.b], None, d, 1.0, 0.0)
        slots[n + j] = d


def pairwise_path(inputs, output, ext, optimize) -> list[tuple[int, ...]]:
    """opt_einsum's pairwise contraction order of operands with mode tuples `inputs` (einsum's strategies: a bool,
    a name, numpy's (name, memory limit) pair, a PathOptimizer or an explicit path), shared by gettpy.dask."""
    import opt_einsum as oe
    if optimize is False or optimize is None:
        return [(0, 1)] * (len(inputs) - 1)
    steps = _explicit_steps(optimize)
    if steps is not None:
        return _check_path(steps, len(inputs))
    sym: dict[str, str] = {}
    for t in inputs:
        for m in t:
            sym.setdefault(m, oe.get_symbol(len(sym)))
    eq = ",".join("".join(sym[m] for m in t) for t in inputs) + "->" + "".join(sym[m] for m in output)
    # (a zero extent: the result is zeros or empty whatever the order, and opt_einsum's "dp" finds no order over
    #  it, so the order is planned as if it were 1, which keeps the intermediates small)
    shapes = [tuple(max(ext[m], 1) for m in t) for t in inputs]
    limit = None
    if isinstance(optimize, tuple) and len(optimize) == 2 and isinstance(optimize[0], str):
        optimize, limit = optimize  # numpy's (strategy, memory limit) form
        if limit <= 0:  # numpy then contracts all operands at once; the pairwise equivalent is in order
            return [(0, 1)] * (len(inputs) - 1)
    path, _ = oe.contract_path(eq, *shapes, shapes=True, optimize="auto" if optimize is True else optimize,
                               memory_limit=limit)
    return [tuple(p) for p in path]


def _explicit_path(optimize) -> bool:
    return isinstance(optimize, list | tuple) and bool(optimize) and isinstance(optimize[0], str) \
        and optimize[0] == "einsum_path"


def _explicit_steps(optimize) -> list | None:
    """An explicit path in numpy's spelling ``["einsum_path", (i, j), ...]``, from either numpy's or
    opt_einsum's (a list of tuples); None when `optimize` is not an explicit path (a strategy name, numpy's
    (name, memory limit) pair, a bool, a PathOptimizer)."""
    if _explicit_path(optimize):
        return list(optimize)
    if isinstance(optimize, list | tuple) and not any(isinstance(s, str) for s in optimize):
        return ["einsum_path", *optimize]
    return None


def _check_path(optimize, n: int) -> list[tuple[int, ...]]:
    """The steps of an explicit path ``["einsum_path", (i, j), ...]`` for `n` operands, checked as numpy
    does: each step names one or more distinct operands among those then alive (the inputs left, then
    each step's result appended last), and the path ends in one tensor. A PathError otherwise (a
    SubscriptError, and the RuntimeError numpy raises for a path that leaves operands)."""
    steps, live = [], n
    for j, step in enumerate(optimize[1:]):
        try:
            idx = tuple(operator.index(i) for i in step)
        except TypeError:
            raise PathError(f"optimize: path step {j} {step!r} is not a tuple of operand positions") from None
        if not idx:
            raise PathError(f"optimize: path step {j} is empty")
        if len(set(idx)) != len(idx):
            raise PathError(f"optimize: path step {j} {step!r} repeats an operand")
        bad = [i for i in idx if not 0 <= i < live]
        if bad:  # (negative positions too: numpy reads them inconsistently, one way to plan and another to pop)
            raise PathIndexError(f"optimize: path step {j} {step!r} names operand {bad[0]}, but only {live} "
                                 f"operand(s) are left at that step")
        steps.append(idx)
        live -= len(idx) - 1
    if live != 1:
        raise PathError(f"optimize: the explicit path leaves {live} operands uncontracted (of {n}); it must "
                             f"contract every operand into one result")
    return steps
