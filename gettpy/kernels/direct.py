"""The direct kernel: a contraction with a short sum computed output element by output element.

Where the sum over k is short (an outer product, a Hadamard product, scaling by a vector: K = 1; a few summed
values), a GEMM tile has nothing to reuse that a cache would not hold anyway, and the contraction is the stream of
D's bytes. The GETT tile then loses to that stream where its tile does not fit the shape: one batch index a CTA
where the batch modes lead D (each CTA a lone element per sector), a tile of 16+ rows where M is 1, a staged copy of
D. This kernel walks D in its own memory order instead:

    D[g] = op_d(alpha * sum_k op_a(A[a(g) + a_k(k)]) * op_b(B[b(g) + b_k(k)]) + beta * op_c(C[c(g)]))

for every flat index g of D's free coordinates, fastest first. A warp takes 32 x vec consecutive units of g (a unit
is one value, or where D is 2-byte and the layout allows, `DirectLayout.pairs`, two neighbouring values: D stored
and each 2-byte input that runs along D read as one 4-byte word), its lane l those of l + 32 j: each load or store
instruction of the warp then touches 32 neighbouring units of D (and of every input that runs along D's fastest
axis; an input constant along it is one address). While a lane's units share their coordinates beyond the fastest
axis (all but where a row of D ends), their offsets are one base plus multiples of each tensor's fastest stride.
The sum over k is unrolled (K <= MAX_K), its offsets compile-time constants.

`DirectLayout` (pure, frozen) is the kernel's whole geometry: the plan layer derives it from a problem
(gettpy.plan.direct) and `direct_source` renders it without taking further decisions. `direct_run` launches it on
CuPy arrays. Element types: float16, bfloat16, float32, float64 in any mix, computed in float32 or float64; the
ops as the GETT kernel applies them (an input's op in its own compute type, rounded to its type).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from importlib import resources

import numpy as np

from ..errors import KernelError
from .render import render_op
from .spec import CUDA_TYPE, scalar_type

#: threads per block
THREADS = 256
#: summed values a direct kernel unrolls at most
MAX_K = 16
#: the element types of the direct kernel, and its compute types
DTYPES = ("f16", "bf16", "f32", "f64")
COMPUTE = ("f32", "f64")
#: the element types a pair unit reads two of as one word
TWO_BYTE = ("f16", "bf16")
#: values of D a lane may take
VECS = (2, 4, 8)
#: blocks of a launch at most (a grid-stride loop covers the rest)
MAX_BLOCKS = 1 << 20


@dataclass(frozen=True, slots=True)
class DirectLayout:
    """A direct contraction's geometry and types.

    Attributes:
        free: extents of D's free axes, fastest first (merged where every tensor steps through them as one).
        a, b, c, d: each tensor's element stride along each free axis (0 where it lacks the axis; c is () without
            a C operand).
        ksum: extents of the summed axes (merged alike); ka, kb: A's and B's strides along them.
        dtypes: short dtype names of A, B, C (or "") and D; compute: "f32" or "f64".
        ops: CUDA expressions of op_a, op_b, op_c, op_d ("" for the identity).
        vec: values of g a lane takes (32 x vec a warp): VECS.
    """

    free: tuple[int, ...]
    a: tuple[int, ...]
    b: tuple[int, ...]
    c: tuple[int, ...]
    d: tuple[int, ...]
    ksum: tuple[int, ...]
    ka: tuple[int, ...]
    kb: tuple[int, ...]
    dtypes: tuple[str, str, str, str]
    compute: str
    ops: tuple[str, str, str, str] = ("", "", "", "")
    vec: int = 4

    def __post_init__(self):
        n = len(self.free)
        if any(len(s) != n for s in (self.a, self.b, self.d)) or (self.c and len(self.c) != n):
            raise KernelError(f"direct layout: {n} free axes but strides {self.a}, {self.b}, {self.c}, {self.d}")
        if len(self.ka) != len(self.ksum) or len(self.kb) != len(self.ksum):
            raise KernelError(f"direct layout: {len(self.ksum)} summed axes but strides {self.ka}, {self.kb}")
        if any(e < 1 for e in self.free + self.ksum):
            raise KernelError(f"direct layout: extents {self.free}, {self.ksum} must be positive")
        if self.k_total > MAX_K:
            raise KernelError(f"direct layout: a sum of {self.k_total} values exceeds the kernel's {MAX_K}")
        ta, tb, tc, td = self.dtypes
        if any(t not in DTYPES for t in (ta, tb, td)) or (tc and tc not in DTYPES) or self.compute not in COMPUTE:
            raise KernelError(f"direct layout: dtypes {self.dtypes} / compute {self.compute!r} are not direct types "
                              f"({', '.join(DTYPES)}; compute {', '.join(COMPUTE)})")
        if bool(tc) != bool(self.c):
            raise KernelError("direct layout: C's dtype and strides come together")
        if self.vec not in VECS:
            raise KernelError(f"direct layout: {self.vec} values a lane; the kernel takes {VECS}")

    @property
    def total(self) -> int:
        """D's free elements."""
        return math.prod(self.free)

    @property
    def k_total(self) -> int:
        return math.prod(self.ksum)

    @property
    def pair_inputs(self) -> tuple[str, ...]:
        """The inputs a pair unit reads as one 4-byte word: 2-byte ones that run along D's fastest axis."""
        return tuple(n for n, t, st in (("a", self.dtypes[0], self.a), ("b", self.dtypes[1], self.b))
                     if st[0] == 1 and t in TWO_BYTE)

    @property
    def pairs(self) -> bool:
        """Whether the kernel may take two neighbouring values of D's fastest axis as a unit (a 2-byte D that runs
        along it, of even extent or D's only axis, the inputs running along it or constant; every unit of D and of each
        `pair_inputs` at an even offset); the launch also needs their pointers 4-byte aligned."""
        if self.dtypes[3] not in TWO_BYTE or self.d[0] != 1 or (self.free[0] % 2 and len(self.free) > 1) \
                or self.a[0] not in (0, 1) or self.b[0] not in (0, 1):
            return False
        even = [self.d[1:]] + [getattr(self, n)[1:] + getattr(self, "k" + n) for n in self.pair_inputs]
        return all(x % 2 == 0 for st in even for x in st)

    def offsets(self, g: np.ndarray) -> dict[str, np.ndarray]:
        """Each tensor's element offset of the flat indices `g` (numpy; the kernel's arithmetic, for tests)."""
        out = {n: np.zeros_like(g) for n in ("a", "b", "c", "d")}
        r = g.copy()
        for i, e in enumerate(self.free):
            ci = r % e
            r = r // e
            for n in out:
                st = getattr(self, n)
                if st:
                    out[n] += ci * st[i]
        return out

    def k_offsets(self) -> list[tuple[int, int]]:
        """(A's, B's) offset of each summed value, in the kernel's order."""
        out = []
        for kk in range(self.k_total):
            r, oa, ob = kk, 0, 0
            for e, sa, sb in zip(self.ksum, self.ka, self.kb, strict=True):
                oa, ob, r = oa + (r % e) * sa, ob + (r % e) * sb, r // e
            out.append((oa, ob))
        return out


def _terms(lay: DirectLayout, names: tuple[str, ...], p: int) -> list[str]:
    """Lines computing `o<name>` (each tensor's offset, type O) from flat unit index `g` (type I: `p` neighbouring
    values of the fastest axis a unit), and c0, g's coordinate along the fastest axis in units."""
    n, e0 = len(lay.free), -(-lay.free[0] // p)  # (units along the fastest axis: its extent is even or the only one)
    lines = [f"    const I c0 = g % I({e0});"]
    if n > 1:
        lines.append(f"    I r = g / I({e0});")
    for x in names:
        lines.append(f"    O o{x} = O(c0) * O({p * getattr(lay, x)[0]});")
    for i in range(1, n):
        e, last = lay.free[i], i == n - 1
        lines.append(f"    {{ const I ci = {'r' if last else f'r % I({e})'};" + ("" if last else f" r /= I({e});"))
        lines += [f"      o{x} += O(ci) * O({getattr(lay, x)[i]});" for x in names if getattr(lay, x)[i]]
        lines.append("    }")
    return lines


def direct_source(lay: DirectLayout, read_c: bool, pairs: bool = False) -> str:
    """CUDA source of kernel `gett_direct(A, B, C, D, alpha, beta)` for `lay`; `read_c`: beta * op_c(C) is added;
    `pairs` (where `lay.pairs` allows it and the pointers are aligned): a lane's unit is two neighbouring values
    along D's fastest axis, a 2-byte input that runs along it read as one 4-byte word, D stored so."""
    ta, tb, tc, td = lay.dtypes
    tc = tc or td
    acc = "double" if lay.compute == "f64" else "float"
    names = ("a", "b", "c", "d") if read_c and lay.c else ("a", "b", "d")
    v, p = lay.vec, 2 if pairs and lay.pairs else 1
    elements = resources.files(__package__).joinpath("gett_elements.cuh").read_text()
    # (S0, the stride along D's fastest axis, matters to units of two values only, where it is 0 or 1)
    sa0, sb0 = (lay.a[0], lay.b[0]) if p == 2 else (0, 0)
    sums = [f"      in<TA, OpA, P, {sa0}>(A + oa + O({ka}), x); in<TB, OpB, P, {sb0}>(B + ob + O({kb}), y);\n"
            "      for (int e = 0; e < P; ++e) s[e] = fma(x[e], y[e], s[e]);" for ka, kb in lay.k_offsets()]
    value = [
        "  // an input's value(s) at p, and p + S0 with P = 2 (S0 = 0 or 1: a 2-byte input running along D read as one",
        "  // word), as TAcc: its op in its own compute type, rounded to its type (the GETT loaders' arithmetic)",
        "  template <class T, class Op> __device__ __forceinline__ static TAcc cvt(T v) {",
        "    if constexpr (Op::kIdentity) return TAcc(gett::to_f(v));",
        "    else return TAcc(gett::to_f(gett::from_acc<T>(Op::apply(gett::to_f(v)))));",
        "  }",
        "  template <class T, class Op, int P, int S0>",
        "  __device__ __forceinline__ static void in(const T* __restrict__ p, TAcc (&x)[P]) {",
        "    if constexpr (P == 2 && S0 == 1 && sizeof(T) == 2) {",
        "      const gett::Pack<T, 2> w = *reinterpret_cast<const gett::Pack<T, 2>*>(p);",
        "      x[0] = cvt<T, Op>(w.e[0]), x[1] = cvt<T, Op>(w.e[1]);",
        "    } else {",
        "#pragma unroll",
        "      for (int e = 0; e < P; ++e) x[e] = cvt<T, Op>(p[e * S0]);",
        "    }",
        "  }",
        "  // op_d(alpha * sum_k op_a(A) op_b(B) + beta * op_c(C)) of a unit of P values, rounded to D's type",
        "  template <int P>",
        "  __device__ __forceinline__ static gett::Pack<TD, P> value(const TA* __restrict__ A,",
        "      const TB* __restrict__ B, const TC* __restrict__ C, O oa, O ob, O oc, TAcc alpha, TAcc beta) {",
        "    TAcc s[P], x[P], y[P];",
        "#pragma unroll",
        "    for (int e = 0; e < P; ++e) s[e] = TAcc(0);",
        "    {", *sums, "    }",
        "    gett::Pack<TD, P> out;",
        "#pragma unroll",
        "    for (int e = 0; e < P; ++e) {",
        "      TAcc r = alpha * s[e];",
    ]
    if read_c and lay.c:
        value.append(f"      r += beta * TAcc(OpC::template apply<TAcc>(TAcc(gett::to_f(C[oc + O(e * {lay.c[0]})]))));")
    value += ["      if constexpr (!OpD::kIdentity) r = OpD::template apply<TAcc>(r);",
              "      out.e[e] = gett::from_acc<TD>(r);", "    }", "    return out;", "  }"]
    oc = "O(0)" if "c" not in names else "oc"
    step = {x: f"O({32 * p * getattr(lay, x)[0]}) * O(j)" for x in names}
    if p == 2:  # (D's unit is one aligned word)
        store = lambda off, val: f"*reinterpret_cast<gett::Pack<TD, 2>*>(D + {off}) = {val.format(2)};"  # noqa: E731
    else:
        store = lambda off, val: f"D[{off}] = {val.format(1)}.e[0];"  # noqa: E731
    # (pairs over one axis of odd extent: the last unit is one value)
    odd = p == 2 and lay.free[0] % 2 == 1
    last = [f"          if (g == TOTAL - 1) D[od] = K::value<1>(A, B, C, oa, ob, {oc}, alpha, beta).e[0];",
            "          else"] if odd else []
    text = [
        "#include <cuda_fp16.h>", "#include <cuda_bf16.h>", "namespace gett {", elements, "}  // namespace gett", "",
        f"typedef {CUDA_TYPE[ta]} TA;", f"typedef {CUDA_TYPE[tb]} TB;", f"typedef {CUDA_TYPE[tc]} TC;",
        f"typedef {CUDA_TYPE[td]} TD;", f"typedef {acc} TAcc;",
        # (the flat index and the offsets: 32-bit arithmetic where they fit, its divisions by constants cheaper)
        f"typedef {'unsigned long long' if _wide(lay) else 'unsigned'} I;",
        f"typedef {'long long' if _wide(lay) else 'int'} O;",
        "struct K {",
        render_op("OpA", lay.ops[0]), render_op("OpB", lay.ops[1]), render_op("OpC", lay.ops[2]),
        render_op("OpD", lay.ops[3]),
        *value,
        "};", "",
        f'extern "C" __global__ void __launch_bounds__({THREADS}) gett_direct(const TA* __restrict__ A, '
        "const TB* __restrict__ B, const TC* __restrict__ C, TD* __restrict__ D, TAcc alpha, TAcc beta) {",
        f"  constexpr unsigned long long TOTAL = {-(-lay.total // p)}ULL, CHUNKS = (TOTAL + {32 * v - 1}) / {32 * v};",
        f"  constexpr unsigned WARPS = {THREADS // 32};",
        "  const unsigned lane = threadIdx.x % 32;",
        "  for (unsigned long long ch = blockIdx.x * (unsigned long long)WARPS + threadIdx.x / 32; ch < CHUNKS;",
        "       ch += (unsigned long long)gridDim.x * WARPS) {",
        f"    const I g = I(ch * {32 * v} + lane);",
        "    if (g >= TOTAL) continue;",
        *_terms(lay, names, p),
        f"    if (c0 + I({32 * (v - 1)}) < I({-(-lay.free[0] // p)}) && g + {32 * (v - 1)} < TOTAL{' - 1' * odd}) {{"
        "  // (one row: offsets a stride apart)",
        "#pragma unroll",
        f"      for (int j = 0; j < {v}; ++j)",
        "        " + store(f"od + {step['d']}", f"K::value<{{}}>(A, B, C, oa + {step['a']}, ob + {step['b']}, "
                                             f"{oc if 'c' not in names else 'oc + ' + step['c']}, alpha, beta)"),
        "    } else {  // (a row's end: each unit's own coordinates)",
        f"      for (int j = 0; j < {v}; ++j) {{",
        "        const I g2 = g + I(32 * j);",
        "        if (g2 >= TOTAL) break;",
        "        {",
        "          const I g = g2;",
        *("      " + x for x in _terms(lay, names, p)),
        *last,
        "          " + store("od", f"K::value<{{}}>(A, B, C, oa, ob, {oc}, alpha, beta)"),
        "        }",
        "      }",
        "    }",
        "  }",
        "}",
    ]
    return "\n".join(text)


def _wide(lay: DirectLayout) -> bool:
    """Whether the flat index or an offset of `lay` may pass 2^31 - 1 (64-bit index arithmetic then)."""
    if lay.total >= 2**31:
        return True
    for st, ks in ((lay.a, lay.ka), (lay.b, lay.kb), (lay.c, ()), (lay.d, ())):
        span = sum((e - 1) * abs(s) for e, s in zip(lay.free, st, strict=False))
        span += sum((e - 1) * abs(s) for e, s in zip(lay.ksum, ks, strict=False))
        if span >= 2**31:
            return True
    return False


def blocks(lay: DirectLayout, pairs: bool = False) -> int:
    """Blocks of a launch of `lay` (one chunk of 32 x vec units a warp, at most MAX_BLOCKS)."""
    units = -(-lay.total // (2 if pairs and lay.pairs else 1))
    chunks = -(-units // (32 * lay.vec))
    return max(1, min(-(-chunks // (THREADS // 32)), MAX_BLOCKS))


@functools.lru_cache(maxsize=256)
def _source(lay: DirectLayout, read_c: bool, pairs: bool) -> str:
    return direct_source(lay, read_c, pairs)


def direct_run(lay: DirectLayout, a, b, c, d, alpha, beta, read_c: bool) -> None:
    """Launch the direct kernel of `lay` on CuPy arrays (each passed by its element 0's pointer) on the current
    stream; `read_c`: C is read (beta != 0 and a C given)."""
    import cupy

    from .build import load_source

    if lay.total == 0:
        return
    ptrs = {"a": a.data.ptr, "b": b.data.ptr}
    pairs = lay.pairs and d.data.ptr % 4 == 0 and all(ptrs[n] % 4 == 0 for n in lay.pair_inputs)
    f = load_source(_source(lay, read_c, pairs), "gett_direct")
    scalar = scalar_type(lay.compute)
    cp = c.data.ptr if read_c else 0
    args = (np.uint64(a.data.ptr), np.uint64(b.data.ptr), np.uint64(cp), np.uint64(d.data.ptr), scalar(alpha),
            scalar(beta))
    f((blocks(lay, pairs),), (THREADS,), args, stream=cupy.cuda.get_current_stream())


__all__ = ["COMPUTE", "DTYPES", "VECS", "DirectLayout", "MAX_K", "THREADS", "blocks", "direct_run", "direct_source"]
