"""The element types gettpy contracts, their short names, and dtype resolution in one place.

Short names are what plans, kernel specs and the benchmark use: ``f16``, ``bf16``, ``f32``, ``f64``,
``c64``, ``c128``; the integer types ``i8`` ... ``i64``, ``u8`` ... ``u64`` and ``b1`` (bool). The GPU kernel
takes the types in `GPU_DTYPES` (all of them: integers and bool on its SIMT path, backends/gpu_exact.py).

Every front end (einsum, `plan`, `Contraction`, `contract`) and the ContractionProblem itself take their
types from this module:

* `promote` is numpy's promotion (``np.result_type``) on short names, with bfloat16 ranked as float16;
* `resolve` decides an einsum call's types: the type every operand is cast to before the contraction,
  the output type (``dtype=``, ``out``, numpy's ``casting`` rule) and the compute type;
* `compute_of` is the accumulate type of a binary problem: never narrower than any operand or the
  output, so complex inputs stay complex until the final cast into a real output, and float32 /
  complex64 inputs into float64 / complex128 outputs accumulate in the wider type. Integer problems
  accumulate in 64 bits, which gives numpy's wrap-around in the result type once cast; bool problems
  compute in bool (numpy's bool einsum is the logical or of ands);
* `check_ops` refuses the fused ops a computation's type cannot take, for every front end alike.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import DtypeError, OpError

_BY_NUMPY = {
    np.dtype(np.float16): "f16",
    np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64",
    np.dtype(np.complex64): "c64",
    np.dtype(np.complex128): "c128",
    np.dtype(np.int8): "i8",
    np.dtype(np.int16): "i16",
    np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64",
    np.dtype(np.uint8): "u8",
    np.dtype(np.uint16): "u16",
    np.dtype(np.uint32): "u32",
    np.dtype(np.uint64): "u64",
    np.dtype(np.bool_): "b1",
}
_NUMPY_OF = {v: k for k, v in _BY_NUMPY.items()}
ITEMSIZE = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "c64": 8, "c128": 16,
            "i8": 1, "i16": 2, "i32": 4, "i64": 8, "u8": 1, "u16": 2, "u32": 4, "u64": 8, "b1": 1}
#: accumulate (compute) type per input type: tensor cores accumulate fp16/bf16 in fp32; integers accumulate
#: in 64 bits of their signedness (the same result modulo 2**bits as numpy's wrap-around in the result
#: type, since + and x commute with reduction modulo 2**bits); bool in bool (or of ands).
ACCUMULATE = {"f16": "f32", "bf16": "f32", "f32": "f32", "f64": "f64", "c64": "c64", "c128": "c128",
              "i8": "i64", "i16": "i64", "i32": "i64", "i64": "i64",
              "u8": "u64", "u16": "u64", "u32": "u64", "u64": "u64", "b1": "b1"}
NUMPY_ACCUMULATE = {"f32": np.float32, "f64": np.float64, "c64": np.complex64, "c128": np.complex128,
                    "i64": np.int64, "u64": np.uint64, "b1": np.bool_}
#: the storage types the GPU kernel contracts; a backend that gains a type adds it here (the front ends
#: refuse the others for CuPy arrays with a DtypeError before planning)
GPU_DTYPES = {"f16", "bf16", "f32", "f64", "c64", "c128",
              "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "b1"}  # (integers, bool: backends/gpu_exact.py)
_SUPPORTED = "float16, bfloat16, float32, float64, complex64, complex128, int8-int64, uint8-uint64 and bool"


def short_name(dtype, what: str = "operand") -> str:
    """Short name of a numpy/cupy/torch-like dtype, or a DtypeError naming `what`."""
    if isinstance(dtype, str) and dtype in ITEMSIZE:
        return dtype
    name = getattr(dtype, "name", None) or str(dtype)
    if name in ("bfloat16", "torch.bfloat16"):
        return "bf16"
    try:
        nd = np.dtype(dtype)
    except (TypeError, ValueError):
        raise DtypeError(f"{what}: unsupported dtype {dtype!r}") from None
    if nd.name == "bfloat16":  # ml_dtypes
        return "bf16"
    try:
        return _BY_NUMPY[nd]
    except KeyError:
        if not nd.isnative and nd.newbyteorder("=") in _BY_NUMPY:
            # (the kernels and the CPU executor read and write the machine's words: a byte-swapped array taken
            #  as its native twin would be read as other values; gettpy.einsum converts such arrays itself)
            raise DtypeError(f"{what}: dtype {nd.str} is byte-swapped (not this machine's byte order); convert "
                             f"the array with x.astype(x.dtype.newbyteorder('=')) first") from None
        raise DtypeError(f"{what}: unsupported dtype {nd} (gettpy contracts {_SUPPORTED})") from None


def user_dtype(dtype):
    """A dtype argument as numpy reads it: a string numpy knows is numpy's type ('i8' int64, 'u8' uint64, 'f16'
    float128, 'f8' float64), never the gettpy short name it also spells (int8, uint8, float16); strings numpy does
    not know (gettpy's 'f32', 'bf16', 'i32') and dtype objects pass through to `short_name`."""
    if isinstance(dtype, str):
        try:
            return np.dtype(dtype)
        except TypeError:
            return dtype
    return dtype


def numpy_dtype(short: str) -> np.dtype:
    """numpy dtype of a short name (bf16 only where ml_dtypes is installed)."""
    if short == "bf16":
        try:
            import ml_dtypes
        except ImportError:  # pragma: no cover - depends on environment
            raise DtypeError("bf16 needs ml_dtypes for numpy arrays; use cupy or torch arrays") from None
        return np.dtype(ml_dtypes.bfloat16)
    return _NUMPY_OF[short]


def is_complex(short: str) -> bool:
    return short in ("c64", "c128")


def is_exact(short: str) -> bool:
    """Whether `short` is an integer or bool type (computed in its own kind, never in floating point)."""
    return short == "b1" or short[0] in "iu"


#: the built-in ops whose values are not integers for integer arguments
NON_INTEGER_OPS = ("gelu", "sigmoid", "tanh", "exp", "log", "sqrt", "elu")


def warn_complex_to_real(stacklevel: int) -> None:
    """numpy's ComplexWarning, for a complex result written into a real output (its real part kept), from einsum's
    `out` under casting='unsafe' and from a plan's real D alike."""
    import warnings

    warnings.warn("Casting complex values to real discards the imaginary part", np.exceptions.ComplexWarning,
                  stacklevel=stacklevel + 1)


def check_ops(named_ops, short: str) -> None:
    """Refuse the ops a computation of type `short` cannot take: an OpError naming the op and `what` of its
    ``(what, op)`` pair in `named_ops` (the argument or operand it came with).

    The ops run in the computation's type (the CPU executor and the kernels apply them after the cast into the
    accumulate type), so `short` is the type the operands are contracted in (its kind is the accumulate type's):

    * bool (the logical or of ands): no op at all;
    * integers: no built-in op whose values are not integers (sigmoid, exp, ..., scale or leaky_relu by a
      fraction: they would be truncated back to integers); an input's op runs in 64-bit integer arithmetic and
      is held in the input's own type (wrapped as numpy's op(a) wraps), op_d on the 64-bit sum;
    * complex: no built-in op not defined on complex values (relu, sigmoid, ...).

    Custom ops run as their twins define (gettpy cannot tell what their values are), except on bool.
    """
    for what, op in named_ops:
        if op.is_identity:
            continue
        if short == "b1":
            raise OpError(f"{what}: op {op.name!r} on a bool contraction (the logical or of ands): bool contractions "
                          f"take no ops (cast the operands to an integer or float type)")
        fractional = op.name in NON_INTEGER_OPS or any(not float(p).is_integer() for p in op.params)
        if is_exact(short) and op.builtin and fractional:
            spelled = f"{op.name}({', '.join(f'{p:g}' for p in op.params)})" if op.params else op.name
            raise OpError(f"{what}: op {spelled} on a contraction of type {type_name(short)}: its "
                          f"values are not integers, so they would be truncated (cast the operands to a float type)")
        if is_complex(short) and op.builtin and not op.complex_ok:
            raise OpError(f"{what}: op {op.name!r} is not defined on complex values (a contraction of type "
                          f"{type_name(short)})")


def promote(*shorts: str) -> str:
    """numpy's result type of the short names (np.result_type), bfloat16 ranked as float16 (bf16 with
    bf16 stays bf16; bf16 with float16 gives float32, as torch)."""
    shorts = tuple(shorts)
    if not shorts:
        return "f64"
    if all(s == shorts[0] for s in shorts):
        return shorts[0]
    if "bf16" in shorts:
        if "f16" in shorts:
            shorts = tuple("f32" if s in ("f16", "bf16") else s for s in shorts)
        else:
            r = promote(*("f16" if s == "bf16" else s for s in shorts))
            return "bf16" if r == "f16" else r
    return _BY_NUMPY[np.result_type(*(_NUMPY_OF[s] for s in shorts))]


def compute_of(a: str, b: str, c: str | None, d: str) -> str:
    """The compute (accumulate) type of D = op_d(alpha op_a(A) op_b(B) + beta op_c(C)): the accumulate type
    of the promotion of all four types, as numpy computes in the result type of every operand and `out`
    (never narrower than the output, complex whenever an operand is, integers in 64 bits)."""
    return ACCUMULATE[promote(a, b, *((c,) if c is not None else ()), d)]


def check_gpu(short: str, what: str) -> None:
    """Raise a DtypeError unless the GPU kernel contracts `short` (see GPU_DTYPES)."""
    if short not in GPU_DTYPES:
        raise DtypeError(f"{what}: dtype {numpy_dtype(short) if short != 'bf16' else 'bfloat16'} has no GPU "
                         f"kernel (the GPU contracts {', '.join(sorted(GPU_DTYPES))}); numpy arrays of it run "
                         f"on the CPU executor")


@dataclass(frozen=True, slots=True)
class Resolution:
    """The types of one einsum call, as short names.

    Attributes:
        inputs: the type every operand is cast to before the contraction (intermediates have it too).
        output: the result's type (`out`'s when given).
        stage: None, or the type the result is computed in before it is cast into `out` (``dtype=``
            that differs from `out`'s type: numpy computes in ``dtype`` and then casts).
        exact: the cast of the staged result into `out` is one `casting` refuses, taken only where it keeps
            every value (checked after the contraction: `resolve`'s `exact_out`).
    """

    inputs: str
    output: str
    stage: str | None = None
    exact: bool = False


def _kind(short: str) -> str:
    return "c" if is_complex(short) else "x" if is_exact(short) else "f"


def _can_cast(src: str, dst: str, casting: str) -> bool:
    if "bf16" in (src, dst):  # (numpy knows bfloat16 only through ml_dtypes: its rules, written out)
        if src == dst or casting == "unsafe":
            return True
        if casting in ("no", "equiv"):
            return False
        if casting == "safe":
            return dst in ("f32", "f64", "c64", "c128") if src == "bf16" else src in ("b1", "i8", "u8")
        return not is_exact(dst) and not (is_complex(src) and not is_complex(dst))  # same_kind
    return bool(np.can_cast(_NUMPY_OF[src], _NUMPY_OF[dst], casting))


def type_name(short: str) -> str:
    """numpy's name of a short name ("int32", "complex64"; "bfloat16" without needing ml_dtypes), for messages."""
    return "bfloat16" if short == "bf16" else str(_NUMPY_OF[short])


def looser_casting(casting: str) -> str:
    """The advice of a refused cast: the looser casting values that would allow it."""
    looser = ("same_kind", "unsafe") if casting in ("no", "equiv", "safe") else ("unsafe",)
    return "pass casting=" + " or ".join(repr(c) for c in looser) + " to allow it"


def resolve(dtypes, dtype=None, out_dtype=None, casting: str = "safe", exact_out: bool = False) -> Resolution:
    """An einsum call's types by numpy's rules.

    Args:
        dtypes: the operands' dtypes (of the arrays the operands became: Python scalars and lists
            promote as numpy.einsum promotes them, as arrays).
        dtype: the `dtype=` argument. As numpy, it is the type the contraction runs in: every operand
            must cast to it under `casting`, and `out` (read and written) both ways.
        out_dtype: the dtype of `out` (None: no `out`). Without `dtype=`, numpy computes in the result
            type of the operands and `out`: the operands must cast to it, and it to `out`, under `casting`.
        casting: numpy's casting rule ("no", "equiv", "safe", "same_kind", "unsafe").
        exact_out: where the result type does not cast to `out` under `casting`, compute in the operands' result
            type and cast into `out` when every value survives the cast (Resolution.exact), rather than refuse the
            call. numpy's optimized path (``optimize=True``, "greedy", "optimal") computes so and writes into
            `out` unchecked: a float sum of 7.0 into an int64 `out` gives 7, as numpy's does, and 7.5 raises where
            numpy would store 7.

    Returns:
        The Resolution. The operands are cast to the compute type, except that one or two operands of
        one kind (real, complex, exact; with `dtype=`, integers that widen to it safely) keep their own
        promotion and the kernel widens them as it reads
        (f32 inputs into a float64 `out` accumulate in float64), and that half inputs (float16 or
        bfloat16, one or two operands of one type) with a float32 result stay half: the tensor cores'
        mixed mode (for three or more operands the intermediates would be half precision, so the inputs
        are promoted instead).
    """
    ins = [short_name(t, f"operand {i}") for i, t in enumerate(dtypes)]
    res = promote(*ins)
    out_s = None if out_dtype is None else short_name(out_dtype, "out")
    half = len(ins) <= 2 and all(s == ins[0] for s in ins) and ins[0] in ("f16", "bf16")
    if dtype is not None:
        want = short_name(dtype, "dtype=")
        for i, s in enumerate(ins):
            if not _can_cast(s, want, casting):
                raise DtypeError(f"operand {i}: cannot cast {type_name(s)} to dtype={type_name(want)} under "
                                 f"casting={casting!r} ({looser_casting(casting)})")
        if out_s is not None and not (_can_cast(want, out_s, casting) and _can_cast(out_s, want, casting)):
            raise DtypeError(f"out has dtype {type_name(out_s)}, which does not cast to and from dtype="
                             f"{type_name(want)} under casting={casting!r}")
        out_s = want if out_s is None else out_s
        if half and want == "f32" and out_s == "f32":
            return Resolution(ins[0], out_s)
        if len(ins) <= 2 and all(s[0] in "iu" for s in ins) and want[0] in "iu" and _can_cast(res, want, "safe"):
            # (integers that widen to dtype= exactly keep their own type: the kernels widen them as they read,
            #  and the sums wrap in dtype='s bits as numpy's do, so 8-bit inputs reach the int8 tensor cores)
            return Resolution(res, out_s, None if out_s == want else want)
        return Resolution(want, out_s, None if out_s == want else want)
    # (numpy's result type of the operands and `out` at once: int16 and uint16 into a float32 out compute in
    #  float32, where the operands' int32 promoted with float32 would give float64)
    compute = res if out_s is None else promote(*ins, out_s)
    refused = next((i for i, s in enumerate(ins) if not _can_cast(s, compute, casting)), None)
    if out_s is not None and exact_out and (refused is not None or not _can_cast(compute, out_s, casting)):
        # numpy's optimized path computes in the operands' type, then writes out: so does this, where every value
        # survives the cast into out (checked after the contraction)
        for i, s in enumerate(ins):
            if not _can_cast(s, res, casting):
                raise DtypeError(f"operand {i}: cannot cast {type_name(s)} to the computation's type {type_name(res)} "
                                 f"under casting={casting!r}")
        return Resolution(res, out_s, res, exact=True)
    if refused is not None:  # (numpy casts every operand to the compute type under `casting` too)
        raise DtypeError(f"operand {refused}: cannot cast {type_name(ins[refused])} to the computation's type "
                         f"{type_name(compute)} under casting={casting!r}")
    if out_s is None:
        return Resolution(res, res)
    if not _can_cast(compute, out_s, casting):
        raise DtypeError(f"out has dtype {type_name(out_s)}, which cannot hold the result type {type_name(compute)} "
                         f"under casting={casting!r}")
    if half and out_s == "f32":
        return Resolution(ins[0], out_s)
    keep = len(ins) <= 2 and _kind(res) == _kind(compute)
    # (an integer result into a bool `out`: numpy's sum wraps in the computation's bits before the cast to bool,
    #  which the wider accumulator's value (nonzero where the wrapped sum is 0) would not give)
    stage = compute if out_s == "b1" and compute != "b1" and is_exact(compute) else None
    return Resolution(res if keep else compute, out_s, stage)


#: compute types that are not storage types: the tensor-core modes of float32 inputs (accumulate in
#: float32): "tf32" rounds each input to TF32 (10-bit mantissa), "3xtf32" splits each input into two
#: TF32 parts and adds three products (close to float32 accuracy). Opt-in only.
TF32_MODES = {"tf32": 1, "3xtf32": 3}


def accumulate_type(compute: str) -> str:
    """The short name of the type a compute type accumulates in ("f32" for the TF32 modes)."""
    return "f32" if compute in TF32_MODES else compute


def round_tf32(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to TF32 as the tensor cores' cvt.rna does (nearest, ties away from zero)."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    u = x.view(np.uint32)
    r = np.where(np.isfinite(x), (u + np.uint32(0x1000)) & np.uint32(0xFFFFE000), u).astype(np.uint32)
    return r.view(np.float32)
