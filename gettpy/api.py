"""Plan once, contract many times: a cuTENSOR-2-like low-level API and a stateful Contraction.

Low level (mirrors cuTENSOR 2 / nvmath-python)::

    a, b = np.ones((72, 72, 72), np.float32), np.ones((72, 72, 72), np.float32)
    c = np.zeros((72, 72), np.float32)
    desc = gettpy.TensorDescriptor.of                    # descriptors carry the arrays' real strides
    p = gettpy.plan(desc(a), "abk", desc(b), "kca", desc(c), "bc")
    gettpy.contract(p, 1.0, a, b, 0.0, c, c)             # D = alpha A B + beta C

High level::

    c = gettpy.Contraction("abk,kca->bc", a, b)
    d = c.execute(alpha=2.0)
    c.reset_operands(a=a2); d = c.execute()

Both run on numpy arrays (CPU executor) and CuPy arrays (GETT kernel). Types follow numpy's promotion
(`gettpy.dtypes`): A and B of different types are contracted in their common type (a cast copy of the
narrower one per call), the compute type is never narrower than any operand or D, and complex results
keep their imaginary part until the final cast into a real D (with numpy's ComplexWarning when planned). A D of a
narrower kind than the result (a floating result into integers, anything but bool into bool) is refused, as
numpy's same_kind casting refuses it.
"""
from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np

from . import backends
from .dtypes import (
    ITEMSIZE,
    NUMPY_ACCUMULATE,
    TF32_MODES,
    accumulate_type,
    check_gpu,
    check_ops,
    compute_of,
    is_complex,
    is_exact,
    numpy_dtype,
    promote,
    short_name,
    type_name,
    user_dtype,
    warn_complex_to_real,
)
from .errors import DtypeError, LayoutError, OptionError, ShapeError, SubscriptError
from .layouts.descriptor import pointer_alignment, self_overlapping
from .ops import Op, Semiring, as_op, as_semiring, identity
from .plan.cache import cached_schedule
from .plan.problem import MAX_INDEX, ContractionProblem, TensorInfo
from .plan.schedule import Schedule
from .semantics import check_count
from .subscripts import SUBLIST_LETTERS

#: a numpy or CuPy array (the plan API takes both; the type is not imported for CuPy's sake)
Array: TypeAlias = Any
#: alpha / beta: a Python or numpy number (complex ones for complex plans only)
Scalar: TypeAlias = int | float | complex | np.number


def _is_array(x) -> bool:
    # (numpy scalars have shape, dtype and strides but no memory to read or write)
    return all(hasattr(x, a) for a in ("shape", "dtype", "strides")) and not isinstance(x, type | np.generic)


_ARRAY_TYPES: set = set()  # the types seen to be arrays (a repeated call checks a set membership only)


def _require_array(x, what: str) -> None:
    """A DtypeError (a TypeError) unless `x` is a numpy or CuPy array."""
    t = type(x)
    if t in _ARRAY_TYPES:
        return
    if not _is_array(x):
        raise DtypeError(f"{what} must be a numpy or CuPy array, got {t.__name__}")
    if len(_ARRAY_TYPES) < 64:
        _ARRAY_TYPES.add(t)


def _c_order(extents) -> tuple[int, ...]:
    st, acc = [], 1
    for e in reversed(extents):
        st.append(acc)
        acc *= e
    return tuple(reversed(st))


@dataclass(frozen=True, slots=True)
class TensorDescriptor:
    """A tensor's extents, element strides, dtype, fused op and data-pointer alignment, as cuTENSOR's.

    Build it from an existing array with ``TensorDescriptor.of(array)``: that is the way to plan for
    numpy or CuPy arrays, since it carries the array's real strides (row-major, column-major, views).

    ``TensorDescriptor(extents, strides=None, dtype="float32", op=None, alignment=16)`` builds one from
    numbers. **Default strides (strides=None) are cuTENSOR's: packed, first mode fastest (column-major,
    Fortran order)**, e.g. extents (3, 4, 5) get element strides (1, 3, 12). A C-ordered (row-major)
    numpy array of those extents has element strides (20, 5, 1) and does not match such a descriptor:
    `contract` then says which operand and which dimension's stride differs.

    Attributes:
        extents: one extent per dimension (non-negative, below 2**63).
        strides: element strides (not bytes), one per dimension; negative and 0 allowed for inputs.
        dtype: short name of the element type ("f32", "c64", "i8", ...). The constructor reads a dtype string
            as numpy does, as gettpy.einsum's dtype= does ("i8" is int64, "u8" uint64, "f16" float128): to
            build a descriptor of another's type pass a numpy dtype, ``gettpy.dtypes.numpy_dtype(d.dtype)``.
        op: the unary op fused into reads of this tensor (gettpy.ops).
        alignment: the bytes the data pointer is aligned to (the kernel's vector loads assume it).
    """

    extents: tuple[int, ...]
    strides: tuple[int, ...] | None = None
    dtype: str = "f32"
    op: Op = identity
    alignment: int = 16
    _accepted: set = field(default_factory=set, compare=False, repr=False, hash=False)
    _span: tuple = field(default=(0, 0), compare=False, repr=False, hash=False)

    def __init__(self, extents: Sequence[int], strides: Sequence[int] | None = None, dtype: Any = "float32",
                 op: Op | str | tuple | None = None, alignment: int = 16):
        ext = _ints(extents, "TensorDescriptor extents")
        for d, e in enumerate(ext):
            if e < 0 or e > MAX_INDEX:
                raise ShapeError(f"TensorDescriptor: extent {e} of dimension {d} is not in [0, 2**63)")
        if strides is None:
            strides = _fortran_order(ext)
        strides = _ints(strides, "TensorDescriptor strides")
        if len(strides) != len(ext):
            raise ShapeError(f"TensorDescriptor: {len(ext)} extents but {len(strides)} strides")
        for d, s in enumerate(strides):
            if abs(s) > MAX_INDEX:
                raise ShapeError(f"TensorDescriptor: stride {s} of dimension {d} is beyond 64-bit offsets")
        object.__setattr__(self, "extents", ext)
        object.__setattr__(self, "strides", strides)
        object.__setattr__(self, "dtype", short_name(user_dtype(dtype), "TensorDescriptor"))
        object.__setattr__(self, "op", as_op(op, "TensorDescriptor op"))
        alignment = check_count("TensorDescriptor: alignment", alignment)
        if alignment < 1 or alignment & (alignment - 1):
            raise OptionError(f"TensorDescriptor: alignment={alignment!r}: the bytes the data pointer is aligned to, "
                              f"a power of two (1, 2, 4, 8 or 16 and more)")
        object.__setattr__(self, "alignment", int(alignment))
        # (shape, byte strides, dtype) of arrays that passed `matches`: a repeated call skips the checks
        object.__setattr__(self, "_accepted", set())
        object.__setattr__(self, "_span", self._byte_span())

    @classmethod
    def of(cls, x: Array, op: Op | str | tuple | None = None) -> TensorDescriptor:
        """Descriptor of an existing numpy/CuPy array: its extents, real element strides, dtype and
        pointer alignment (the way to describe an array; see the class docstring)."""
        _require_array(x, "TensorDescriptor.of: x")
        for d, (e, s) in enumerate(zip(x.shape, x.strides, strict=True)):
            if e > 1 and s % x.itemsize:
                raise LayoutError(f"TensorDescriptor.of: stride {s} bytes of dimension {d} is not a whole "
                                  f"number of {x.itemsize}-byte elements")
        return cls(x.shape, tuple(s // x.itemsize for s in x.strides), x.dtype, op,
                   pointer_alignment(backends.data_ptr(x)))

    @property
    def byte_span(self) -> tuple[int, int]:
        """[lo, hi) byte offsets, relative to the data pointer, of every element (empty: (0, 0))."""
        return self._span

    def _byte_span(self) -> tuple[int, int]:
        if any(e == 0 for e in self.extents):
            return 0, 0
        lo = sum((e - 1) * s for e, s in zip(self.extents, self.strides, strict=True) if s < 0)
        hi = sum((e - 1) * s for e, s in zip(self.extents, self.strides, strict=True) if s > 0)
        item = ITEMSIZE[self.dtype]
        return lo * item, (hi + 1) * item

    def matches(self, x: Array, what: str, ptr: int | None = None) -> None:
        """Raise unless array `x` (data pointer `ptr`, looked up when None) has this descriptor's extents,
        strides, dtype and pointer alignment."""
        key = (x.shape, x.strides, x.dtype)
        if key not in self._accepted:
            self._check_layout(x, what)
            if len(self._accepted) < 8:
                self._accepted.add(key)
        if ptr is None:
            ptr = backends.data_ptr(x)
        if pointer_alignment(ptr) < min(self.alignment, ITEMSIZE[self.dtype] * 8, 16):
            raise LayoutError(f"{what}: data pointer is less aligned than the plan's {self.alignment} bytes")

    def _check_layout(self, x, what: str) -> None:
        if tuple(x.shape) != self.extents:
            raise ShapeError(f"{what}: array has extents {tuple(x.shape)}, the plan expects {self.extents}")
        if any(e > 1 and s % x.itemsize for s, e in zip(x.strides, x.shape, strict=True)):
            raise LayoutError(f"{what}: strides {tuple(x.strides)} bytes are not whole {x.itemsize}-byte elements")
        st = tuple(s // x.itemsize if e > 1 else 0 for s, e in zip(x.strides, x.shape, strict=True))
        want = tuple(s if e > 1 else 0 for s, e in zip(self.strides, self.extents, strict=True))
        if st != want:
            dim = next(i for i, (u, v) in enumerate(zip(st, want, strict=True)) if u != v)
            hint = ""
            if want == tuple(s if e > 1 else 0 for s, e in zip(_fortran_order(self.extents), self.extents,
                                                                 strict=True)):
                hint = " (the descriptor has the default column-major strides, first mode fastest"
                hint += "; the array is row-major)" if st == tuple(
                    s if e > 1 else 0 for s, e in zip(_c_order(self.extents), self.extents, strict=True)) else ")"
            raise LayoutError(f"{what}: dimension {dim} has element stride {st[dim]} but the plan's descriptor "
                              f"has {want[dim]} (array strides {st}, descriptor strides {want}){hint}; plan with "
                              f"gettpy.TensorDescriptor.of(array) to use the array's own strides")
        if short_name(x.dtype, what) != self.dtype:
            raise DtypeError(f"{what}: array has dtype {x.dtype}, the plan expects {self.dtype}")


def _ints(values, what: str) -> tuple[int, ...]:
    try:
        return tuple(operator.index(v) for v in values)
    except TypeError:
        raise ShapeError(f"{what} must be a sequence of integers, got {values!r}") from None


def _fortran_order(extents) -> tuple[int, ...]:
    st, acc = [], 1
    for e in extents:
        st.append(acc)
        acc *= e
    return tuple(st)


@dataclass(frozen=True, slots=True)
class PlanPreference:
    """How hard to look for a plan: "default" (heuristic); "patient"/"tuned" are the autotuner's."""

    algo: str = "default"
    max_tuning_s: float = 10.0

    def __post_init__(self):
        if self.algo not in ("default", "patient", "tuned", "auto"):
            raise SubscriptError(f"PlanPreference: unknown algo {self.algo!r} (default, patient, tuned, auto)")


def _label_kind(modes) -> str:
    """"str" or "int": the kind of an operand's mode labels (a string's characters are str labels)."""
    if isinstance(modes, str):
        return "str"
    try:
        kinds = {"str" if isinstance(m, str) else "int" for m in modes}
    except TypeError:
        return "str"  # (not a sequence: `_modes` says so)
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _modes(modes, n: int, what: str) -> tuple[str, ...]:
    if isinstance(modes, str):
        out = tuple(modes)
    else:
        try:
            out = tuple(m if isinstance(m, str) else SUBLIST_LETTERS[operator.index(m)]
                        if 0 <= operator.index(m) < 52 else f"#{operator.index(m)}" for m in modes)
        except TypeError:
            raise SubscriptError(f"{what}: modes must be a string or a sequence of mode labels (str or int), "
                                 f"got {modes!r}") from None
    if len(out) != n:
        raise SubscriptError(f"{what}: {len(out)} modes {out} for a tensor of {n} dimensions")
    if len(set(out)) != len(out):
        raise SubscriptError(f"{what}: modes {out} repeat (use gettpy.einsum for diagonals)")
    return out


@dataclass(frozen=True, slots=True)
class ContractionPlan:
    """A plan for D = op_d(alpha op_a(A) op_b(B) + beta op_c(C)) on fixed descriptors.

    Attributes:
        plan: the schedule of the contraction the kernel runs.
        desc_a, desc_b, desc_c, desc_d: the descriptors the operands must match.
        preference: the planning preference.
        cast_a, cast_b: None, or the numpy dtype A (B) is cast to (a C-ordered copy per call) because A
            and B have different types: they are contracted in their common type.
        cast_op_a, cast_op_b: the op the cast of a floating A (B), or of an integer one into a wider integer type,
            applies first, in the input's own type (as einsum applies it: gettpy.ops), the problem then carrying
            none; identity otherwise.
        compute: short name of the compute type (alpha and beta are typed against it).
        gpu_error: why CuPy arrays cannot run this plan (a type the GPU kernel lacks), "" when they can.
        cpu_plan: the schedule numpy arrays run (the CPU executor's own: the core without the GPU's stagings).
    """

    plan: Schedule
    desc_a: TensorDescriptor
    desc_b: TensorDescriptor
    desc_c: TensorDescriptor
    desc_d: TensorDescriptor
    preference: PlanPreference
    cast_a: np.dtype | None = None
    cast_b: np.dtype | None = None
    compute: str = ""
    gpu_error: str = ""
    cpu_plan: Schedule | None = None
    cast_op_a: Op = identity
    cast_op_b: Op = identity

    def cast_operands(self, xp, a, b):
        """A and B in the plan's types: each input of another type cast into a C-ordered copy of the common
        type, its op applied first in its own type where the cast carries it (`cast_op_a`, `cast_op_b`)."""
        if self.cast_a is not None:
            a = xp.ascontiguousarray(self.cast_op_a.on_input(a, a.dtype), dtype=self.cast_a)
        if self.cast_b is not None:
            b = xp.ascontiguousarray(self.cast_op_b.on_input(b, b.dtype), dtype=self.cast_b)
        return a, b

    @property
    def workspace_size(self) -> int:
        """Bytes of the temporaries the plan allocates per call (packed inputs, split-K workspace)."""
        return self.plan.workspace_bytes


def _compute_type(compute_type, ins: str, desc_c: TensorDescriptor, desc_d: TensorDescriptor) -> str:
    """The problem's compute type: the operands' (`dtypes.compute_of`) or the one asked for, which must not
    be narrower (a DtypeError otherwise)."""
    need = compute_of(ins, ins, desc_c.dtype, desc_d.dtype)
    if compute_type is None:
        return ""
    if isinstance(compute_type, str) and compute_type in TF32_MODES:  # opt-in tensor-core modes of float32
        return compute_type
    ct = short_name(user_dtype(compute_type), "compute_type")
    if ct in ("f16", "bf16") and ins in ("f16", "bf16"):
        ct = "f32"  # (half data accumulates in float32 on the tensor cores)
    if ct not in NUMPY_ACCUMULATE or is_exact(ct) != is_exact(need) or promote(ct, need) != ct:
        raise DtypeError(f"compute_type={compute_type!r}: narrower than or of another kind than the operands' "
                         f"compute type {need} (A and B {ins}, C {desc_c.dtype}, D {desc_d.dtype})")
    return ct


def _check_d_holds_the_result(result: str, d: str) -> None:
    """A DtypeError where D's type is of a narrower kind than the result's (the promotion of A, B and C): a floating
    or complex result into an integer or bool D (numpy's same_kind casting refuses it; the cast would truncate);
    numpy's ComplexWarning where a complex result goes into a real D (its real part is kept, as einsum's `out`
    under casting='unsafe')."""
    inexact = result.startswith(("f", "c")) or result == "bf16"
    if inexact and d[0] in "iu" or d == "b1" and result != "b1":
        raise DtypeError(f"D's type {type_name(d)} cannot hold the contraction's {type_name(result)} values (A, B "
                         f"and C promote to it; the cast would truncate): give D a {type_name(result)} (or wider) "
                         f"type, as numpy's same_kind casting asks")
    if is_complex(result) and not is_complex(d):
        warn_complex_to_real(stacklevel=3)


def plan(desc_a: TensorDescriptor, modes_a: str | Sequence, desc_b: TensorDescriptor, modes_b: str | Sequence,
         desc_c: TensorDescriptor, modes_c: str | Sequence, desc_d: TensorDescriptor | None = None,
         modes_d: str | Sequence | None = None, compute_type: Any = None,
         preference: PlanPreference | None = None, semiring: Semiring | str | None = None) -> ContractionPlan:
    """Plan D[modes_d] = alpha A[modes_a] B[modes_b] + beta C[modes_c] (D defaults to C).

    Args:
        desc_a, desc_b, desc_c, desc_d: TensorDescriptors (``TensorDescriptor.of(array)`` for arrays).
        modes_a, modes_b, modes_c, modes_d: one mode label per dimension (a string, or str/int labels).
        compute_type: None (numpy's promotion of the four types, accumulated as `gettpy.dtypes` says), a
            dtype no narrower than that, or "tf32" / "3xtf32" for float32 operands.
        preference: a PlanPreference.
        semiring: None, a name ("max_plus", ...) or a gettpy.ops.Semiring for the sum over k.

    Returns:
        The ContractionPlan for `contract`.

    Raises:
        DtypeError, ShapeError, LayoutError, SubscriptError: naming the operand, mode or value at fault (a
        D whose elements overlap each other, extents whose product leaves 64-bit indexing, a D of a narrower kind
        than the result of A, B and C, ...).
        OpError: a descriptor's op the computation's type cannot take (`gettpy.dtypes.check_ops`, as
        einsum: any op on bool, sigmoid or scale(0.5) on integers, relu on complex), naming the operand.
    """
    desc_d = desc_c if desc_d is None else desc_d
    modes_d = modes_c if modes_d is None else modes_d
    for what, desc in (("A", desc_a), ("B", desc_b), ("C", desc_c), ("D", desc_d)):
        if not isinstance(desc, TensorDescriptor):
            raise DtypeError(f"plan: desc_{what.lower()} must be a gettpy.TensorDescriptor (TensorDescriptor.of("
                             f"array)), got {type(desc).__name__}")
    kinds = {w: _label_kind(m) for w, m in (("A", modes_a), ("B", modes_b), ("C", modes_c), ("D", modes_d))}
    if len(set(kinds.values())) > 1:  # (int label 0 and str label 'A' would name one mode)
        raise SubscriptError(f"mode labels mix ints and strings ({', '.join(f'{w}: {k}' for w, k in kinds.items())}): "
                             f"give every operand's modes as strings, or every one's as ints")
    ma = _modes(modes_a, len(desc_a.extents), "A")
    mb = _modes(modes_b, len(desc_b.extents), "B")
    mc = _modes(modes_c, len(desc_c.extents), "C")
    md = _modes(modes_d, len(desc_d.extents), "D")
    if mc != md or desc_c.extents != desc_d.extents:
        raise SubscriptError(f"C {mc}{desc_c.extents} and D {md}{desc_d.extents} must have the same modes "
                             f"and extents")
    ext: dict[str, int] = {}
    for name, modes, desc in (("A", ma, desc_a), ("B", mb, desc_b), ("C", mc, desc_c)):
        for m, e in zip(modes, desc.extents, strict=True):
            if ext.setdefault(m, e) != e:
                raise ShapeError(f"mode {m!r}: extent {ext[m]} elsewhere but {e} in operand {name}")
    for m in md:
        if m not in ma and m not in mb:
            raise SubscriptError(f"output mode {m!r} appears in neither A nor B")
    # A and B of different types are contracted in their common type (numpy's promotion): the narrower one
    # is cast per call into a C-ordered copy, which the problem describes
    ins = promote(desc_a.dtype, desc_b.dtype)
    _check_d_holds_the_result(promote(ins, desc_c.dtype), desc_d.dtype)
    # the ops run in the compute type, whose kind is that of the four types' promotion (`compute_of`)
    check_ops([(f"operand {w} (desc_{w.lower()}.op)", d.op) for w, d in
               (("A", desc_a), ("B", desc_b), ("C", desc_c), ("D", desc_d))],
              promote(ins, desc_c.dtype, desc_d.dtype))

    def cast_op(desc) -> Op:  # (an input cast to the common type: a floating one's op applied first, in its type,
        #                          and an integer one's of an integer contraction, wrapped in its type as numpy's)
        cast = desc.dtype != ins and ins != "bf16"  # (as the ContractionPlan's cast_a / cast_b below)
        own = desc.dtype in ("f16", "bf16", "f32", "f64") or desc.dtype[0] in "iu" and ins[0] in "iu"
        return desc.op if cast and own else identity

    def info(name, modes, desc):
        if name in "AB" and desc.dtype != ins:
            op = identity if not cast_op(desc).is_identity else desc.op
            return TensorInfo(name, modes, _c_order(desc.extents), ins, 16, op)
        return TensorInfo(name, modes, desc.strides, desc.dtype, desc.alignment, desc.op)

    if self_overlapping(desc_d.extents, desc_d.strides):
        raise LayoutError(f"D: its strides {desc_d.strides} make distinct elements share memory (a stride 0 or "
                          f"overlapping strides); gettpy cannot write such an output")
    compute = _compute_type(compute_type, ins, desc_c, desc_d)
    problem = ContractionProblem(info("A", ma, desc_a), info("B", mb, desc_b), info("C", mc, desc_c),
                                 info("D", md, desc_d), tuple(sorted(ext.items())), compute,
                                 as_semiring(semiring))
    cast = None if ins == "bf16" else numpy_dtype(ins)
    return ContractionPlan(cached_schedule(problem), desc_a, desc_b, desc_c, desc_d,
                           preference or PlanPreference(), cast if desc_a.dtype != ins else None,
                           cast if desc_b.dtype != ins else None, problem.compute, _gpu_error(problem),
                           cached_schedule(problem, "numpy"), cast_op(desc_a), cast_op(desc_b))


def _gpu_error(problem: ContractionProblem) -> str:
    """The DtypeError message `contract` raises for CuPy arrays of this problem ("" where the GPU runs it)."""
    for t in (problem.a, problem.b, problem.c, problem.d):
        try:
            check_gpu(t.dtype, f"operand {t.name}")
        except DtypeError as e:
            return str(e)
    return ""


def _scalar(v, what: str, compute: str):
    """`v` as a Python number of the compute type's kind, or a DtypeError naming `what` (alpha / beta)."""
    try:
        if (type(v) is float or type(v) is int) and compute in _REAL_FLOAT:  # (the common case, fast)
            return float(v)
        return _number(v, what, compute)
    except OverflowError:  # (an int or Fraction beyond any float: Python's conversion raises)
        raise DtypeError(f"{what}={v!r} is too large for the plan's compute type "
                         f"{accumulate_type(compute)}") from None


def _number(v, what: str, compute: str):
    if isinstance(v, np.ndarray) and v.ndim == 0 or isinstance(v, np.generic):
        v = v.item()
    acc = accumulate_type(compute)
    if isinstance(v, bool) and acc == "b1":  # (a bool plan's alpha and beta: the and with the product, the or)
        return int(v)
    if isinstance(v, bool) or not isinstance(v, numbers.Number):
        raise DtypeError(f"{what} must be a number, got {type(v).__name__} {v!r}")
    if isinstance(v, numbers.Complex) and not isinstance(v, numbers.Real):
        if not is_complex(acc):
            raise DtypeError(f"{what}={v!r} is complex but the plan computes in real {acc}; pass a real {what} or "
                             f"complex operands")
        return complex(v)
    if is_exact(acc):
        if not isinstance(v, numbers.Integral) and not float(v).is_integer():
            raise DtypeError(f"{what}={v!r} is not an integer but the plan computes in {acc}")
        v = int(v) % 2**64  # (wrapped into the 64-bit compute type, as numpy's integer arithmetic wraps)
        return v - 2**64 if acc == "i64" and v >= 2**63 else int(bool(v)) if acc == "b1" else v
    return complex(v) if is_complex(acc) else float(v)


_REAL_FLOAT = frozenset({"f32", "f64", *TF32_MODES})


def _spans_overlap(x: TensorDescriptor, x0: int, y: TensorDescriptor, y0: int) -> bool:
    """Whether the byte spans of two operands (descriptors, data pointers) overlap: the bounds test of numpy's
    and CuPy's may_share_memory, from the descriptors' cached spans (cheaper than asking the array library)."""
    xlo, xhi = x.byte_span
    ylo, yhi = y.byte_span
    return xhi > xlo and yhi > ylo and x0 + xlo < y0 + yhi and y0 + ylo < x0 + xhi


def _check_c_is_d_or_apart(plan: ContractionPlan, c0: int, d0: int) -> None:
    """A LayoutError where C shares memory with D but is not D itself (the same data pointer, and the same byte
    stride for every mode of extent > 1): each thread reads its elements of C just before it writes the same elements
    of D, which is safe only where they are the same elements; other threads would write D over C's values before
    they are read."""
    if not _spans_overlap(plan.desc_c, c0, plan.desc_d, d0):
        return
    p = plan.plan.problem
    ext = dict(p.extents)

    def steps(t):
        return {m: s * t.itemsize for m, s in t.stride_of().items() if ext[m] > 1}

    if c0 == d0 and p.c is not None and p.c.dtype == p.d.dtype and steps(p.c) == steps(p.d):
        return
    raise LayoutError("C shares memory with D but is not D itself (the same data pointer and strides): the kernel "
                      "would write elements of D before it reads the elements of C they overlap; pass C = D, or a "
                      "copy of C")


def contract(plan: ContractionPlan, alpha: Scalar, a: Array, b: Array, beta: Scalar, c: Array | None, d: Array,
             stream: Any = None) -> Array:
    """Execute `plan`: d = op_d(alpha op_a(a) op_b(b) + beta op_c(c)); c may be d itself (the same array), but
    no other view of d's memory. Returns d.

    alpha and beta are numbers of the plan's compute type (complex ones only for complex plans; bools for bool
    plans, whose sum is the or of ands). An integer plan takes any integer alpha and beta modulo 2**64: its sums
    wrap in 64 bits and D keeps its own low bits, so the result is the exact integer result wrapped into D's type,
    as numpy's integer arithmetic wraps. alpha == 0 reads neither a nor b (d = op_d(beta op_c(c))); beta == 0 does
    not read c (c may be None). Every check happens before d is written: on an error d is untouched.

    Raises:
        DtypeError: a non-array operand, alpha/beta not a number of the compute type, an array type the
            device has no kernel for. ShapeError, LayoutError: an array that does not match its descriptor; a d
            that shares memory with a or b, or with c where c is not d itself.
    """
    if not isinstance(plan, ContractionPlan):
        raise DtypeError(f"contract: plan must be a gettpy.ContractionPlan (gettpy.plan(...)), got "
                         f"{type(plan).__name__}")
    alpha = _scalar(alpha, "alpha", plan.compute)
    beta = _scalar(beta, "beta", plan.compute)
    _require_array(d, "D")
    if alpha != 0:
        _require_array(a, "A")
        _require_array(b, "B")
    if beta != 0:
        if c is None:
            raise DtypeError("C is None but beta != 0: pass C (it may be D) or beta=0")
        _require_array(c, "C")
    name = backends.array_module_name(d)
    used = [x for x in ((a, b) if alpha != 0 else ()) + ((c,) if beta != 0 else ())]
    if any(backends.array_module_name(x) != name for x in used):
        kinds = sorted({backends.array_module_name(x) for x in (*used, d)})
        raise DtypeError(f"A, B, C and D must all be numpy or all cupy arrays, got {kinds}")
    ptrs = {}
    if alpha != 0:
        ptrs["A"], ptrs["B"] = backends.data_ptr(a), backends.data_ptr(b)
        plan.desc_a.matches(a, "A", ptrs["A"])
        plan.desc_b.matches(b, "B", ptrs["B"])
    ptrs["D"] = backends.data_ptr(d)
    plan.desc_d.matches(d, "D", ptrs["D"])
    if beta != 0:
        plan.desc_c.matches(c, "C")
    if name == "cupy" and plan.gpu_error:
        raise DtypeError(plan.gpu_error)
    if name == "numpy" and not d.flags.writeable:
        raise LayoutError("D is a read-only array; pass a writeable D")
    if math.prod(plan.desc_d.extents) == 0:
        return d
    if beta != 0:
        _check_c_is_d_or_apart(plan, backends.data_ptr(c), ptrs["D"])
    if alpha == 0:  # BLAS's and cuTENSOR's rule: A and B are not read (an inf or NaN in them cannot leak)
        backends.execute_without_ab(name, plan.plan, c if beta != 0 else None, d, beta, stream=stream)
        return d
    for what, desc in (("A", plan.desc_a), ("B", plan.desc_b)):  # (D must not overlap A or B)
        if _spans_overlap(plan.desc_d, ptrs["D"], desc, ptrs[what]):
            raise LayoutError(f"D shares memory with {what}: the kernel would read what it writes; "
                              f"pass a separate D (C may be D)")
    if plan.cast_a is not None or plan.cast_b is not None:
        a, b = plan.cast_operands(backends.xp_of(name), a, b)
    # the CPU executor runs its own schedule of the problem (the core alone): a plan made where a GPU is present
    # carries the GPU's stagings, which on numpy arrays would only add copies to the peak memory
    sched = plan.cpu_plan if name == "numpy" and plan.cpu_plan is not None else plan.plan
    backends.execute(name, sched, a, b, c if beta != 0 else None, d, alpha, beta, stream=stream)
    return d


class Contraction:
    """Stateful contraction: plan once for the operands' layouts, execute many times.

    Args:
        subscripts: binary einsum subscripts with explicit output, e.g. "abk,kca->bc" (no diagonals).
        a, b: operands (numpy or CuPy arrays). c: optional C for beta != 0. out: optional output array
            (default: a new C-ordered array of numpy's result type of a, b and c).
        ops: (op_a, op_b) and op_out fused ops.
        compute: None, or "tf32" / "3xtf32" for float32 operands (see gettpy.einsum).
        semiring: None, a name ("max_plus", ...) or a gettpy.ops.Semiring (see gettpy.einsum).

    Raises (when constructed, before any planning):
        SubscriptError: subscripts that are not binary with an explicit output, or do not fit a's or b's rank.
        ShapeError: a mode's extents disagree between a and b, or c or out has a shape other than the result's
            (naming c or out).
        OpError: an op the operands' type cannot take (as einsum, `gettpy.dtypes.check_ops`), naming it
            ("ops[0] (operand A)", "op_out (operand D)", ...).
    """

    def __init__(self, subscripts: str, a: Array, b: Array, c: Array | None = None, out: Array | None = None,
                 ops: Sequence | None = None,
                 op_out: Op | str | tuple | None = None, compute: str | None = None,
                 semiring: Semiring | str | None = None):
        if not isinstance(subscripts, str) or "->" not in subscripts or subscripts.count(",") != 1:
            raise SubscriptError(f"Contraction needs binary subscripts with an explicit output, got {subscripts!r}")
        given, subscripts = subscripts, "".join(subscripts.split())  # (spaces are ignored, as numpy's einsum does)
        bad = next((ch for ch in subscripts.replace("->", "").replace(",", "") if not ch.isalpha()), None)
        if bad is not None or subscripts.count("->") != 1:
            what = f"{bad!r}" if bad is not None else "'->' twice"
            raise SubscriptError(f"Contraction: {what} in {given!r}: its subscripts are letters, one per dimension "
                                 f"(no '...' or broadcasting: use gettpy.einsum for those)")
        for what, x in (("a", a), ("b", b)) + ((("c", c),) if c is not None else ()) + \
                ((("out", out),) if out is not None else ()):
            _require_array(x, f"Contraction: {what}")
        lhs, self._md = subscripts.split("->")
        self._ma, self._mb = lhs.split(",")
        for what, modes in (("a", self._ma), ("b", self._mb), ("the output", self._md)):
            repeated = sorted({m for m in modes if modes.count(m) > 1})
            if repeated:
                raise SubscriptError(f"Contraction: mode {repeated[0]!r} appears twice in {what}'s subscripts "
                                     f"{modes!r} (no diagonals or traces: use gettpy.einsum for those)")
        if ops is None:
            self._ops = (identity, identity)
        elif isinstance(ops, list | tuple) and len(ops) == 2:
            self._ops = tuple(as_op(o, f"ops[{i}]") for i, o in enumerate(ops))
        else:
            raise SubscriptError(f"Contraction: ops must be a pair (op_a, op_b), got {ops!r}")
        self._op_out = as_op(op_out, "op_out")
        self._compute, self._semiring = compute, semiring
        self._plan: ContractionPlan | None = None
        self.a, self.b, self.c = a, b, c
        shape = self._result_shape()
        for what, x in (("c", c), ("out", out)):
            if x is not None and tuple(x.shape) != shape:
                raise ShapeError(f"Contraction: {what} has shape {tuple(x.shape)} but the result of {subscripts!r} "
                                 f"has shape {shape}")
        self.out = out if out is not None else self._alloc_out(shape)
        self._check_ops()  # (here, not at the first execute: a Contraction that cannot run is refused when made)

    def _result_shape(self) -> tuple[int, ...]:
        """The result's shape from a's and b's extents (a SubscriptError or ShapeError naming the operand)."""
        ext: dict[str, tuple[int, str]] = {}  # mode -> (extent, the operand it was first seen in)
        for what, x, modes in (("a", self.a, self._ma), ("b", self.b, self._mb)):
            if len(modes) != len(x.shape):
                raise SubscriptError(f"Contraction: operand {what} has {len(x.shape)} dimensions but "
                                     f"{len(modes)} modes {modes!r}")
            for m, e in zip(modes, x.shape, strict=True):
                first, where = ext.setdefault(m, (e, what))
                if first != e:
                    raise ShapeError(f"Contraction: mode {m!r} has extent {first} in operand {where} but {e} in "
                                     f"operand {what}")
        missing = [m for m in self._md if m not in ext]
        if missing:
            raise SubscriptError(f"output mode {missing[0]!r} appears in neither input")
        return tuple(ext[m][0] for m in self._md)

    def _alloc_out(self, shape: tuple[int, ...]):
        """A C-ordered result of numpy's result type of a, b and c."""
        xp = backends.xp_of(backends.array_module_name(self.a))
        types = [short_name(x.dtype, w) for w, x in (("a", self.a), ("b", self.b), ("c", self.c)) if x is not None]
        res = promote(*types)
        dtype = numpy_dtype(res) if res != "bf16" else self.a.dtype
        return xp.empty(shape, dtype=dtype)

    def _check_ops(self) -> None:
        """Refuse the ops the current operands' type cannot take, named as the caller gave them (ops[0], op_out):
        without c, `plan` gets out's descriptor, op_out included, as C's too, and would name op_out operand C's."""
        types = [short_name(x.dtype, w) for w, x in (("a", self.a), ("b", self.b), ("c", self.c), ("out", self.out))
                 if x is not None]
        check_ops([("ops[0] (operand A)", self._ops[0]), ("ops[1] (operand B)", self._ops[1]),
                   ("op_out (operand D)", self._op_out)], promote(*types))

    def plan(self) -> ContractionPlan:
        """Plan for the current operands' layouts (cached: planning again costs a lookup)."""
        self._check_ops()  # (reset_operands may have brought operands of another type)
        da = TensorDescriptor.of(self.a, self._ops[0])
        db = TensorDescriptor.of(self.b, self._ops[1])
        dd = TensorDescriptor.of(self.out, self._op_out)
        dc = TensorDescriptor.of(self.c) if self.c is not None else dd
        self._plan = plan(da, self._ma, db, self._mb, dc, self._md, dd, self._md, compute_type=self._compute,
                          semiring=self._semiring)
        return self._plan

    def execute(self, alpha: Scalar = 1.0, beta: Scalar = 0.0, stream: Any = None) -> Array:
        """out = op_out(alpha op_a(a) op_b(b) + beta c); returns out."""
        p = self._plan or self.plan()
        if _scalar(beta, "beta", p.compute) != 0 and self.c is None:
            raise DtypeError("beta != 0 needs a C operand (Contraction(..., c=...))")
        return contract(p, alpha, self.a, self.b, beta, self.c, self.out, stream=stream)

    def autotune(self, samples: int = 48, top: int = 8, reps: int = 5) -> list:
        """Autotune this contraction on its current operands (see gettpy.tune); later plans use the winner.

        Returns the measured trials, best first.
        """
        from .tune import tune_problem

        p = self._plan or self.plan()
        result = self.execute()  # the heuristic plan's result: the reference for every candidate
        ref = result.copy()
        xp = backends.xp_of(backends.array_module_name(self.a))
        a, b = p.cast_operands(xp, self.a, self.b)  # (the plan's types)
        trials = tune_problem(p.plan.problem, backends.array_module_name(self.a), a, b, ref,
                              samples=samples, top=top, reps=reps)
        self._plan = None  # re-planned from the cache, which now holds the tuned candidate
        return trials

    def reset_operands(self, a: Array | None = None, b: Array | None = None, c: Array | None = None,
                       out: Array | None = None) -> None:
        """Swap in new arrays; the plan is kept when their layouts match, redone otherwise."""
        for name, x in (("a", a), ("b", b), ("c", c), ("out", out)):
            if x is not None:
                _require_array(x, f"reset_operands: {name}")
                old = getattr(self, name)
                if old is not None and (tuple(x.shape) != tuple(old.shape)):
                    raise ShapeError(f"reset_operands: {name} has shape {tuple(x.shape)}, expected "
                                     f"{tuple(old.shape)}")
                setattr(self, name, x)
        self._plan = None
