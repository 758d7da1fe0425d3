"""ContractionProblem: what is to be computed, with every fact a plan depends on.

    D[modes_d] = op_d( alpha * sum_{k} op_a(A[modes_a]) * op_b(B[modes_b]) + beta * op_c(C[modes_d]) )

Each tensor is described by its (unique) modes, their element strides (a mode repeated in one
operand has already been folded by the front end into one mode whose stride is the sum), its dtype,
the alignment of its data pointer and its op. The problem is frozen and hashable: it is the plan
cache's key once canonicalised (`canonical`).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field, replace

from ..dtypes import ITEMSIZE, TF32_MODES, compute_of, is_exact
from ..errors import DtypeError, ShapeError, SubscriptError
from ..ops import Op, Semiring, identity


@dataclass(frozen=True, slots=True)
class TensorInfo:
    """One operand: its modes (unique), element strides, short dtype name, pointer alignment, op."""

    name: str
    modes: tuple[str, ...]
    strides: tuple[int, ...]
    dtype: str
    align: int = 16
    op: Op = field(default=identity)

    def __post_init__(self):
        if len(set(self.modes)) != len(self.modes):
            raise SubscriptError(f"operand {self.name}: modes {self.modes} repeat; fold diagonals first")
        if len(self.strides) != len(self.modes):
            raise ShapeError(f"operand {self.name}: {len(self.modes)} modes but {len(self.strides)} strides")
        if self.dtype not in ITEMSIZE:
            raise DtypeError(f"operand {self.name}: unknown dtype {self.dtype!r}")

    @property
    def itemsize(self) -> int:
        return ITEMSIZE[self.dtype]

    def stride_of(self) -> dict[str, int]:
        return dict(zip(self.modes, self.strides, strict=True))


@dataclass(frozen=True, slots=True)
class ContractionProblem:
    """A binary contraction D = op_d(alpha * op_a(A) op_b(B) + beta * op_c(C)).

    Attributes:
        a, b: the inputs. c: the C input (None when beta is always 0). d: the output.
        extents: (mode, extent) pairs, sorted by mode.
        compute: short name of the accumulate type ("": `dtypes.compute_of` the four types, never
            narrower than any of them).
        semiring: the (⊕, ⊗) of the sum over k (gettpy.ops.Semiring), None for (+, ×).
    """

    a: TensorInfo
    b: TensorInfo
    c: TensorInfo | None
    d: TensorInfo
    extents: tuple[tuple[str, int], ...]
    compute: str = ""
    semiring: Semiring | None = None

    def __post_init__(self):
        ext = dict(self.extents)
        _check_sizes(self)
        for t in (self.a, self.b, self.c, self.d):
            if t is None:
                continue
            for m in t.modes:
                if m not in ext:
                    raise SubscriptError(f"operand {t.name}: mode {m!r} has no extent")
        for m in self.d.modes:
            if m not in self.a.modes and m not in self.b.modes:
                raise SubscriptError(f"output mode {m!r} appears in neither input")
        if self.c is not None and set(self.c.modes) != set(self.d.modes):
            raise SubscriptError(f"C modes {self.c.modes} differ from D modes {self.d.modes}")
        if self.semiring is not None and any(t.dtype in ("c64", "c128") for t in (self.a, self.b, self.d)):
            raise DtypeError(f"semiring {self.semiring.name}: complex tensors have no order; semirings take "
                             f"real types only")
        if self.semiring is not None and any(is_exact(t.dtype) for t in (self.a, self.b, self.d)):
            raise DtypeError(f"semiring {self.semiring.name}: its identities are floating-point values; semirings "
                             f"take floating-point types only (cast integer or bool tensors first)")
        if self.compute in TF32_MODES and not (self.a.dtype == self.b.dtype == "f32"):
            raise DtypeError(f"compute type {self.compute}: the TF32 modes take float32 inputs, got "
                             f"{self.a.dtype} and {self.b.dtype}")
        if not self.compute:
            object.__setattr__(self, "compute", compute_of(self.a.dtype, self.b.dtype,
                                                           None if self.c is None else self.c.dtype, self.d.dtype))

    def extent(self, mode: str) -> int:
        return dict(self.extents)[mode]

    def canonical(self) -> ContractionProblem:
        """The same problem with modes renamed in order of first appearance (A, B, D): cache key."""
        names: dict[str, str] = {}
        for t in (self.a, self.b, self.d):
            for m in t.modes:
                names.setdefault(m, chr(ord("a") + len(names)) if len(names) < 26 else f"m{len(names)}")
        ren = lambda t: None if t is None else replace(t, modes=tuple(names[m] for m in t.modes))  # noqa: E731
        ext = tuple(sorted((names[m], e) for m, e in self.extents))
        return ContractionProblem(ren(self.a), ren(self.b), ren(self.c), ren(self.d), ext, self.compute,
                                  self.semiring)


#: the largest element count, offset or product of extents a problem may have (int64 indexing)
MAX_INDEX = 2**63 - 1


def _check_sizes(p: ContractionProblem) -> None:
    """Refuse, before any planning, extents and strides whose products leave 64-bit indexing: a ShapeError
    naming the mode or operand (planning and the kernels index in int64)."""
    total = 1
    for m, e in p.extents:
        if not isinstance(e, numbers.Integral) or e < 0 or e > MAX_INDEX:
            raise ShapeError(f"mode {m!r}: extent {e} is not an integer in [0, 2**63)")
        total *= e
    if total == 0:
        return
    ext = dict(p.extents)
    for t in (p.a, p.b, p.c, p.d):
        if t is not None and math.prod(ext.get(m, 1) for m in t.modes) > MAX_INDEX:
            raise ShapeError(f"operand {t.name}: its extents {tuple(ext.get(m, 1) for m in t.modes)} (modes "
                             f"{''.join(t.modes)!r}) multiply to more than 2**63 - 1 elements (64-bit index overflow)")
    if total > MAX_INDEX:
        raise ShapeError(f"the contraction's extents {dict(p.extents)} multiply to {total} >= 2**63 "
                         f"(64-bit index overflow)")
    for t in (p.a, p.b, p.c, p.d):
        if t is None:
            continue
        span = 0
        for m, s in zip(t.modes, t.strides, strict=True):
            span += abs(int(s)) * (ext.get(m, 1) - 1)
        if (span + 1) * ITEMSIZE[t.dtype] > MAX_INDEX:
            raise ShapeError(f"operand {t.name}: its strides {t.strides} span {span + 1} elements, beyond 64-bit "
                             f"byte offsets")


def packed(t: TensorInfo, order: tuple[str, ...], ext: dict[str, int], dtype: str | None = None,
           apply_op: bool = False) -> TensorInfo:
    """`t` re-laid out densely with its modes in `order` (first fastest); with `apply_op` the pack
    applies t's op and the packed tensor carries none."""
    modes = tuple(m for m in order if m in t.modes)
    strides, acc = [], 1
    for m in modes:
        strides.append(acc)
        acc *= ext[m]
    return TensorInfo(t.name, modes, tuple(strides), dtype or t.dtype, 16, identity if apply_op else t.op)
