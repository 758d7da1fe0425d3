"""Unary elementwise ops fused into a contraction: each a CUDA expression with a numpy twin.

An op is applied to an operand element as it is read (A, B, C) or to the result before it is stored
(D). The CUDA expression is written in terms of ``x`` of the compute type ``T`` (``float`` for fp16,
bf16 and fp32 tensors, ``double`` for fp64); the numpy twin computes the same function on arrays and is
what the CPU executor runs. An input's op(x) is held in the type the input is read in (its own, or the one it
is cast to first: README, "dtypes") before the product, on every backend (the GPU's tiles
keep A and B in that type in shared memory; numpy's ``op(a)`` rounds the same way): float32 inputs summed in
float64 multiply float32 values of op(x), and an op whose value exceeds a float16 input's range gives inf there.
The ops on C and on the result are computed in the accumulate type (on integers, before the result wraps).

    >>> from gettpy import ops
    >>> ops.leaky_relu(0.1)
    Op(name='leaky_relu', params=(0.1,))
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .errors import OpError


@dataclass(frozen=True, slots=True)
class Op:
    """A named unary op: `cuda` is an expression in `x` (type `T`), `numpy` its array twin.

    Equality (and so every plan and cache key an op is part of) covers the numpy twin's identity: two ops
    with the same CUDA text but different twins are different ops (the CPU executor runs the twin). The
    built-in ops (`builtin=True`: this module's, whose twin follows from name and params) compare by name,
    params and text only, so that e.g. two ``leaky_relu(0.1)`` share their plans.
    """

    name: str
    params: tuple[float, ...] = ()
    cuda: str = field(default="x", repr=False)
    numpy: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False, compare=False)
    complex_ok: bool = field(default=False, repr=False)
    builtin: bool = field(default=False, repr=False)
    _twin: object = field(default=None, repr=False, init=False)

    def __post_init__(self):
        # the twin itself (hashed and compared by identity; held, so its id cannot be reused meanwhile)
        object.__setattr__(self, "_twin", None if self.builtin else self.numpy)

    def __call__(self, x):
        """Apply the numpy twin (the identity when there is none)."""
        return x if self.numpy is None else self.numpy(x)

    @property
    def is_identity(self) -> bool:
        return self.name == "identity"

    def on_input(self, x, acc):
        """op(x) of an input array (numpy or CuPy) as a contraction's product takes it, in type `acc`: for a
        floating input computed in float32 (float64 for float64) and held in the input's own type, as the GPU's
        loaders compute and hold it and numpy's ``op(a)`` rounds; for an integer input of an integer contraction
        computed in `acc` and held in the input's own type (wrapped around as numpy's ``op(a)`` wraps: the ops
        taken on integers are exact in 64 bits, so their low bits are those of the op in the input's type); for
        other inputs (bool, complex, an integer one of a floating contraction) computed in `acc`."""
        if self.is_identity:
            return x.astype(acc, copy=False)
        dt = x.dtype
        wide = np.float64 if dt == np.float64 else np.float32 if dt.name in ("float16", "float32", "bfloat16") else None
        if wide is None:
            v = self(x.astype(acc, copy=False))
            if dt.kind in "iu" and np.dtype(acc).kind in "iu" and v.dtype.kind in "iu" and dt != np.dtype(acc):
                v = v.astype(dt).astype(acc, copy=False)  # (the op's value in the input's own type, wrapped)
            return v
        with np.errstate(over="ignore"):
            return self(x.astype(wide, copy=False)).astype(dt).astype(acc, copy=False)


def cuda_literal(v: float) -> str:
    """A CUDA expression of the compute type T for the float v (infinities through their bit pattern)."""
    if math.isinf(v):
        return f"T({'-' if v < 0 else ''}__longlong_as_double(0x7ff0000000000000LL))"
    return f"T({float(v)!r})"


identity = Op("identity", cuda="x", numpy=None, complex_ok=True, builtin=True)
neg = Op("neg", cuda="(-x)", numpy=np.negative, complex_ok=True, builtin=True)
conj = Op("conj", cuda="x", numpy=np.conjugate, complex_ok=True, builtin=True)  # real types: identity
abs = Op("abs", cuda="(x < T(0) ? -x : x)", numpy=np.abs, builtin=True)  # noqa: A001 - mirrors numpy's name
relu = Op("relu", cuda="(x > T(0) ? x : T(0))", numpy=lambda x: np.maximum(x, 0), builtin=True)
gelu = Op(
    "gelu",
    cuda="(T(0.5) * x * (T(1) + tanh(T(0.7978845608028654) * (x + T(0.044715) * x * x * x))))",
    numpy=lambda x: 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x**3))),
    builtin=True,
)
sigmoid = Op("sigmoid", cuda="(T(1) / (T(1) + exp(-x)))", numpy=lambda x: 1 / (1 + np.exp(-x)), builtin=True)
tanh = Op("tanh", cuda="tanh(x)", numpy=np.tanh, builtin=True)
exp = Op("exp", cuda="exp(x)", numpy=np.exp, builtin=True)
log = Op("log", cuda="log(x)", numpy=np.log, builtin=True)
sqrt = Op("sqrt", cuda="sqrt(x)", numpy=np.sqrt, builtin=True)
square = Op("square", cuda="(x * x)", numpy=np.square, complex_ok=True, builtin=True)


def _real_param(name: str, v) -> float:
    """An op factory's parameter as a float: a real number (an OpError naming the op otherwise)."""
    if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating):
        raise OpError(f"{name}: its parameter must be a real number, got {type(v).__name__} {v!r}")
    return float(v)


def leaky_relu(slope: float = 0.01) -> Op:
    """x if x > 0 else slope * x."""
    s = _real_param('leaky_relu', slope)
    return Op("leaky_relu", (s,), cuda=f"(x > T(0) ? x : {cuda_literal(s)} * x)",
              numpy=lambda x: np.where(x > 0, x, s * x), builtin=True)


def elu(alpha: float = 1.0) -> Op:
    """x if x > 0 else alpha * (exp(x) - 1)."""
    a = _real_param('elu', alpha)
    return Op("elu", (a,), cuda=f"(x > T(0) ? x : {cuda_literal(a)} * (exp(x) - T(1)))",
              numpy=lambda x: np.where(x > 0, x, a * np.expm1(np.minimum(x, 0))), builtin=True)


def scale(factor: float) -> Op:
    """factor * x."""
    f = _real_param('scale', factor)
    return Op("scale", (f,), cuda=f"({cuda_literal(f)} * x)", numpy=lambda x: f * x, complex_ok=True, builtin=True)


def custom(cuda: str, numpy: Callable[[np.ndarray], np.ndarray], name: str = "custom") -> Op:
    """A user op: `cuda` is a CUDA expression in `x` of type `T`, `numpy` computes the same on arrays.

    Example: ``custom("x > 0 ? x : 0.1f * x", numpy=lambda x: np.where(x > 0, x, 0.1 * x))``.
    """
    if not isinstance(cuda, str) or "x" not in cuda:
        raise OpError(f"custom op {name!r}: the CUDA expression must be a string using x, got {cuda!r}")
    if not callable(numpy):
        raise OpError(f"custom op {name!r}: numpy twin must be callable, got {numpy!r}")
    return Op(name, (), cuda=f"({cuda})", numpy=numpy)


_NAMED = {o.name: o for o in (identity, neg, conj, abs, relu, gelu, sigmoid, tanh, exp, log, sqrt, square)}
_FACTORIES = {"leaky_relu": leaky_relu, "elu": elu, "scale": scale}
#: the factories without a default parameter
_NEEDS_PARAM = ("scale",)


def as_op(spec, what: str = "op") -> Op:
    """An Op from an Op, None (identity), a name (``"relu"``) or a (name, *params) tuple; an OpError (a
    ValueError) naming `what` for anything else."""
    if spec is None:
        return identity
    if isinstance(spec, Op):
        return spec
    if isinstance(spec, str):
        if spec in _NAMED:
            return _NAMED[spec]
        if spec in _FACTORIES:
            spec = (spec,)
    if isinstance(spec, tuple) and spec and isinstance(spec[0], str) and spec[0] in _FACTORIES:
        params = spec[1:]
        if len(params) > 1:
            raise OpError(f"{what}: {spec[0]} takes one real number as its parameter, got {params!r}")
        if not params and spec[0] in _NEEDS_PARAM:
            raise OpError(f"{what}: {spec[0]} needs its parameter, e.g. ({spec[0]!r}, 0.5)")
        try:
            return _FACTORIES[spec[0]](*params)
        except OpError as e:  # (a parameter that is not a real number: `_real_param`)
            raise OpError(f"{what}: {e}") from None
    known = sorted(_NAMED) + sorted(_FACTORIES)
    raise OpError(f"{what}: unknown op {spec!r}; known ops: {', '.join(known)}, or gettpy.ops.custom(...)")


# ------------------------------------------------------------------------------------------ semirings
@dataclass(frozen=True, slots=True)
class Semiring:
    """The arithmetic of the sum over contracted modes: D = ⊕_k A ⊗ B instead of Σ_k A · B.

    Seed 004's formula (4) with (+, ×) replaced: ``add`` (⊕) is a CUDA expression in ``a`` and ``b``,
    ``mul`` (⊗) one in ``x`` and ``y``, both of the compute type ``T``; ``zero`` is ⊕'s identity (the
    result of an empty sum) and ``one`` ⊗'s (what a one-operand reduction multiplies by).
    ``numpy_add`` must be a numpy ufunc (its ``reduce`` is the CPU executor's sum) and ``numpy_mul``
    an elementwise callable. alpha, beta and C then combine with the result in ordinary arithmetic:
    D = op_d(alpha * (⊕_k op_a(A) ⊗ op_b(B)) + beta * op_c(C)). Semiring contractions run on the
    CUDA-core (simt) path of the kernel, never on tensor cores, and are never split along K.

        >>> from gettpy import ops
        >>> ops.max_plus.name, ops.max_plus.zero
        ('max_plus', -inf)
    """

    name: str
    add: str
    mul: str
    zero: float
    one: float
    # (the numpy twins are part of equality and so of every plan and cache key: identity of the callables)
    numpy_add: np.ufunc = field(repr=False, default=None)
    numpy_mul: Callable = field(repr=False, default=None)

    def reduce(self, x: np.ndarray, axis: int) -> np.ndarray:
        """⊕ over `axis` of a numpy array (the identity `zero` for an empty axis)."""
        return self.numpy_add.reduce(x, axis=axis, initial=self.zero)


# NaN-propagating max/min, like numpy's maximum/minimum
_MAX = "((a != a || a > b) ? a : b)"
_MIN = "((a != a || a < b) ? a : b)"
max_plus = Semiring("max_plus", _MAX, "(x + y)", -np.inf, 0.0, np.maximum, np.add)
min_plus = Semiring("min_plus", _MIN, "(x + y)", np.inf, 0.0, np.minimum, np.add)
# (max, ×) and (min, ×) are semirings on non-negative values (Viterbi); with negative values ⊗ does not
# distribute over ⊕, so a chain of three or more operands depends on the contraction order
max_times = Semiring("max_times", _MAX, "(x * y)", -np.inf, 1.0, np.maximum, np.multiply)
min_times = Semiring("min_times", _MIN, "(x * y)", np.inf, 1.0, np.minimum, np.multiply)
_SEMIRINGS = {s.name: s for s in (max_plus, min_plus, max_times, min_times)}


def semiring(add: str, mul: str, zero: float, one: float, numpy_add: np.ufunc, numpy_mul: Callable,
             name: str = "custom_semiring") -> Semiring:
    """A user semiring: CUDA expressions ``add`` (in a, b) and ``mul`` (in x, y) with their numpy twins.

    Example, the (max, min) "bottleneck" semiring::

        semiring("(a > b ? a : b)", "(x < y ? x : y)", zero=-np.inf, one=np.inf,
                 numpy_add=np.maximum, numpy_mul=np.minimum)
    """
    for what, expr, need in (("add", add, ("a", "b")), ("mul", mul, ("x", "y"))):
        if not isinstance(expr, str) or not all(v in expr for v in need):
            raise OpError(f"semiring {name!r}: {what} must be a CUDA expression using {' and '.join(need)}, "
                              f"got {expr!r}")
    if not isinstance(numpy_add, np.ufunc) or numpy_add.nin != 2:
        raise OpError(f"semiring {name!r}: numpy_add must be a binary numpy ufunc (its reduce sums), "
                          f"got {numpy_add!r}")
    if not callable(numpy_mul):
        raise OpError(f"semiring {name!r}: numpy_mul must be callable, got {numpy_mul!r}")
    return Semiring(name, f"({add})", f"({mul})", float(zero), float(one), numpy_add, numpy_mul)


def as_semiring(spec, what: str = "semiring") -> Semiring | None:
    """A Semiring from a Semiring, a name (``"max_plus"``), or None / ``"plus_times"`` (ordinary sum: None)."""
    if spec is None or spec == "plus_times":
        return None
    if isinstance(spec, Semiring):
        return spec
    if isinstance(spec, str) and spec in _SEMIRINGS:
        return _SEMIRINGS[spec]
    raise OpError(f"{what}: unknown semiring {spec!r}; known: plus_times, {', '.join(sorted(_SEMIRINGS))}, "
                      f"or gettpy.ops.semiring(...)")
