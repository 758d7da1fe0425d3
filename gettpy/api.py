"""Plan once, contract many times: a cuTENSOR-2-like low-level API and a stateful Contraction.

Low level (mirrors cuTENSOR 2 / nvmath-python)::

    da = gettpy.TensorDescriptor((72, 72, 72), dtype="float32")          # packed, first mode fastest
    p = gettpy.plan(da, "abk", db, "kca", dc, "bc")
    gettpy.contract(p, 1.0, a, b, 0.0, c, c)                              # D = alpha A B + beta C

High level::

    c = gettpy.Contraction("abk,kca->bc", a, b)
    d = c.execute(alpha=2.0)
    c.reset_operands(a=a2); d = c.execute()

Both run on numpy arrays (CPU executor) and CuPy arrays (GETT kernel).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from . import backends
from .dtypes import ITEMSIZE, TF32_MODES, short_name
from .errors import DtypeError, GettpyError, LayoutError, ShapeError, SubscriptError
from .layouts.descriptor import pointer_alignment
from .ops import Op, as_op, as_semiring, identity
from .plan.cache import cached_schedule
from .plan.problem import ContractionProblem, TensorInfo
from .plan.schedule import Schedule
from .subscripts import SUBLIST_LETTERS


@dataclass(frozen=True, slots=True)
class TensorDescriptor:
    """Extents, element strides (default: packed, first mode fastest, as cuTENSOR), dtype and op."""

    extents: tuple[int, ...]
    strides: tuple[int, ...] | None = None
    dtype: str = "f32"
    op: Op = identity
    alignment: int = 16
    _accepted: set = field(default_factory=set, compare=False, repr=False, hash=False)
    _span: tuple = field(default=(0, 0), compare=False, repr=False, hash=False)

    def __init__(self, extents, strides=None, dtype="float32", op=None, alignment=16):
        ext = tuple(int(e) for e in extents)
        if any(e < 0 for e in ext):
            raise ShapeError(f"TensorDescriptor: negative extent in {ext}")
        if strides is None:
            st, acc = [], 1
            for e in ext:
                st.append(acc)
                acc *= e
            strides = st
        strides = tuple(int(s) for s in strides)
        if len(strides) != len(ext):
            raise ShapeError(f"TensorDescriptor: {len(ext)} extents but {len(strides)} strides")
        object.__setattr__(self, "extents", ext)
        object.__setattr__(self, "strides", strides)
        object.__setattr__(self, "dtype", short_name(dtype, "TensorDescriptor"))
        object.__setattr__(self, "op", as_op(op, "TensorDescriptor op"))
        object.__setattr__(self, "alignment", int(alignment))
        # (shape, byte strides, dtype) of arrays that passed `matches`: a repeated call skips the checks
        object.__setattr__(self, "_accepted", set())
        object.__setattr__(self, "_span", self._byte_span())

    @classmethod
    def of(cls, x, op=None) -> TensorDescriptor:
        """Descriptor of an existing numpy/CuPy array (its real strides)."""
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

    def matches(self, x, what: str, ptr: int | None = None) -> None:
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
            raise LayoutError(f"{what}: array has element strides {st}, the plan expects {want}")
        if short_name(x.dtype, what) != self.dtype:
            raise DtypeError(f"{what}: array has dtype {x.dtype}, the plan expects {self.dtype}")


@dataclass(frozen=True, slots=True)
class PlanPreference:
    """How hard to look for a plan: "default" (heuristic); "patient"/"tuned" are the autotuner's."""

    algo: str = "default"
    max_tuning_s: float = 10.0

    def __post_init__(self):
        if self.algo not in ("default", "patient", "tuned", "auto"):
            raise GettpyError(f"PlanPreference: unknown algo {self.algo!r}")


def _modes(modes, n: int, what: str) -> tuple[str, ...]:
    if isinstance(modes, str):
        out = tuple(modes)
    else:
        out = tuple(m if isinstance(m, str) else SUBLIST_LETTERS[int(m)] if 0 <= int(m) < 52 else f"#{int(m)}"
                    for m in modes)
    if len(out) != n:
        raise SubscriptError(f"{what}: {len(out)} modes {out} for a tensor of {n} dimensions")
    if len(set(out)) != len(out):
        raise SubscriptError(f"{what}: modes {out} repeat (use gettpy.einsum for diagonals)")
    return out


@dataclass(frozen=True, slots=True)
class ContractionPlan:
    """A plan for D = op_d(alpha op_a(A) op_b(B) + beta op_c(C)) on fixed descriptors."""

    plan: Schedule
    desc_a: TensorDescriptor
    desc_b: TensorDescriptor
    desc_c: TensorDescriptor
    desc_d: TensorDescriptor
    preference: PlanPreference

    @property
    def workspace_size(self) -> int:
        """Bytes of the temporaries the plan allocates per call (packed inputs, split-K workspace)."""
        return self.plan.workspace_bytes


def plan(desc_a, modes_a, desc_b, modes_b, desc_c, modes_c, desc_d=None, modes_d=None,
         compute_type=None, preference=None, semiring=None) -> ContractionPlan:
    """Plan D[modes_d] = alpha A[modes_a] B[modes_b] + beta C[modes_c] (D defaults to C).

    compute_type: None (the operands' accumulate type), a dtype, or "tf32" / "3xtf32" for float32
    operands. semiring: None, a name ("max_plus", ...) or a gettpy.ops.Semiring for the sum over k.
    """
    desc_d = desc_c if desc_d is None else desc_d
    modes_d = modes_c if modes_d is None else modes_d
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

    def info(name, modes, desc):
        return TensorInfo(name, modes, desc.strides, desc.dtype, desc.alignment, desc.op)

    if compute_type in TF32_MODES:  # opt-in tensor-core modes of float32 inputs
        compute = compute_type
    else:
        compute = "" if compute_type is None else short_name(compute_type, "compute_type")
    problem = ContractionProblem(info("A", ma, desc_a), info("B", mb, desc_b), info("C", mc, desc_c),
                                 info("D", md, desc_d), tuple(sorted(ext.items())), compute,
                                 as_semiring(semiring))
    return ContractionPlan(cached_schedule(problem), desc_a, desc_b, desc_c, desc_d,
                           preference or PlanPreference())


def contract(plan: ContractionPlan, alpha, a, b, beta, c, d, stream=None):
    """Execute `plan`: d = op_d(alpha op_a(a) op_b(b) + beta op_c(c)); c may be d. Returns d."""
    ptrs = {"A": backends.data_ptr(a), "B": backends.data_ptr(b), "D": backends.data_ptr(d)}
    for what, x, desc in (("A", a, plan.desc_a), ("B", b, plan.desc_b), ("D", d, plan.desc_d)):
        desc.matches(x, what, ptrs[what])
    if beta != 0:
        plan.desc_c.matches(c, "C")
    name = backends.array_module_name(d)
    if backends.array_module_name(a) != name or backends.array_module_name(b) != name:
        kinds = sorted({backends.array_module_name(x) for x in (a, b, d)})
        raise GettpyError(f"A, B and D must all be numpy or all cupy arrays, got {kinds}")
    if math.prod(plan.desc_d.extents) == 0:
        return d
    # D must not overlap A or B: the bounds test of numpy's/CuPy's may_share_memory, from the
    # descriptors' byte spans (cheaper than asking the array library on every call)
    d0 = ptrs["D"]
    dlo, dhi = plan.desc_d.byte_span
    for what, desc in (("A", plan.desc_a), ("B", plan.desc_b)):
        x0 = ptrs[what]
        xlo, xhi = desc.byte_span
        if dhi > dlo and xhi > xlo and d0 + dlo < x0 + xhi and x0 + xlo < d0 + dhi:
            raise LayoutError(f"D shares memory with {what}: the kernel would read what it writes; "
                              f"pass a separate D (C may be D)")
    backends.execute(name, plan.plan, a, b, c if beta != 0 else None, d, alpha, beta, stream=stream)
    return d


class Contraction:
    """Stateful contraction: plan once for the operands' layouts, execute many times.

    Args:
        subscripts: binary einsum subscripts with explicit output, e.g. "abk,kca->bc" (no diagonals).
        a, b: operands (numpy or CuPy). c: optional C for beta != 0. out: optional output array.
        ops: (op_a, op_b) and op_out fused ops.
        compute: None, or "tf32" / "3xtf32" for float32 operands (see gettpy.einsum).
        semiring: None, a name ("max_plus", ...) or a gettpy.ops.Semiring (see gettpy.einsum).
    """

    def __init__(self, subscripts: str, a, b, c=None, out=None, ops=None, op_out=None, compute=None,
                 semiring=None):
        if "->" not in subscripts or subscripts.count(",") != 1:
            raise SubscriptError(f"Contraction needs binary subscripts with an explicit output, got {subscripts!r}")
        lhs, self._md = subscripts.split("->")
        self._ma, self._mb = lhs.split(",")
        self._ops = (None, None) if ops is None else tuple(ops)
        self._op_out = op_out
        self._compute, self._semiring = compute, semiring
        self._plan: ContractionPlan | None = None
        self.a, self.b, self.c = a, b, c
        self.out = out if out is not None else self._alloc_out()

    def _alloc_out(self):
        ext = dict(zip(self._ma, self.a.shape, strict=False)) | dict(zip(self._mb, self.b.shape, strict=False))
        missing = [m for m in self._md if m not in ext]
        if missing:
            raise SubscriptError(f"output mode {missing[0]!r} appears in neither input")
        xp = backends.xp_of(backends.array_module_name(self.a))
        dtype = self.c.dtype if self.c is not None else np.result_type(self.a.dtype, self.b.dtype)
        return xp.empty(tuple(ext[m] for m in self._md), dtype=dtype)

    def plan(self) -> ContractionPlan:
        """Plan for the current operands' layouts (cached: planning again costs a lookup)."""
        da = TensorDescriptor.of(self.a, self._ops[0])
        db = TensorDescriptor.of(self.b, self._ops[1])
        dd = TensorDescriptor.of(self.out, self._op_out)
        dc = TensorDescriptor.of(self.c) if self.c is not None else dd
        self._plan = plan(da, self._ma, db, self._mb, dc, self._md, dd, self._md, compute_type=self._compute,
                          semiring=self._semiring)
        return self._plan

    def execute(self, alpha=1.0, beta=0.0, stream=None):
        """out = op_out(alpha op_a(a) op_b(b) + beta c); returns out."""
        if beta != 0 and self.c is None:
            raise GettpyError("beta != 0 needs a C operand (Contraction(..., c=...))")
        p = self._plan or self.plan()
        return contract(p, alpha, self.a, self.b, beta, self.c, self.out, stream=stream)

    def autotune(self, samples: int = 48, top: int = 8, reps: int = 5):
        """Autotune this contraction on its current operands (see gettpy.tune); later plans use the winner.

        Returns the measured trials, best first.
        """
        from .tune import tune_problem

        p = self._plan or self.plan()
        result = self.execute()  # the heuristic plan's result: the reference for every candidate
        ref = result.copy()
        trials = tune_problem(p.plan.problem, backends.array_module_name(self.a), self.a, self.b, ref,
                              samples=samples, top=top, reps=reps)
        self._plan = None  # re-planned from the cache, which now holds the tuned candidate
        return trials

    def reset_operands(self, a=None, b=None, c=None, out=None) -> None:
        """Swap in new arrays; the plan is kept when their layouts match, redone otherwise."""
        for name, x in (("a", a), ("b", b), ("c", c), ("out", out)):
            if x is not None:
                old = getattr(self, name)
                if old is not None and (tuple(x.shape) != tuple(old.shape)):
                    raise ShapeError(f"reset_operands: {name} has shape {tuple(x.shape)}, expected "
                                     f"{tuple(old.shape)}")
                setattr(self, name, x)
        self._plan = None
