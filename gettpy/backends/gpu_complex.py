"""Complex contractions on the GPU: one launch of the complex GETT kernel, or real launches of one real plan.

The complex kernel (`execute_fused`; its spec plan/simt.py's `fused_spec`) is the SIMT path on complex elements: the
loaders read the interleaved complex64 / complex128 values in place through the layout maps (strides in complex
elements, 8- or 16-byte copies), each thread keeps its accumulators as complex numbers of the compute type
(complex64 sums in float32, complex128 in float64) and a multiply-add is four real FMAs in registers; conj on A, B
or C is applied as the values are read, alpha and beta are complex run-time arguments. It runs every complex plan
whose D is complex and whose operands are aligned to their element size; the others (and the CPU emulation) take the
real launches below. (Routing compute-bound complex128 plans to real launches on the f64 tensor cores instead ran
0.58-0.88x of the complex kernel on an H200: four launches over planes read one 8-byte value a copy.) The planner
tells the two apart the same way (plan/schedule.py's `one_launch`) and plans the kernel on the operands' own
layouts, packing an input only where its model says the copy pays.

A complex64 tensor is a float32 tensor with doubled strides: its real plane starts at the data pointer, its
imaginary plane one float later (CuPy's and numpy's ``x.real`` / ``x.imag`` are exactly these views). With
A = Ar + i Ai and B = Br + i Bi,

    Re(A B) = Ar Br - Ai Bi,        Im(A B) = Ar Bi + Ai Br,

so a complex contraction is four real contractions of the same shape. Every one of them has the same modes,
extents and (doubled) strides, so one real plan (plan/complex_paths.py's `real_plan`: each operand's strides
doubled, the real dtypes and compute type, alignment capped at the real item size because the imaginary plane is
only that aligned) serves all four launches; only the data pointers differ. The second launch of each plane
accumulates into the first: the real plan's C has D's layout and that launch runs with C = D, beta = 1 (the
kernel reads an element of C, then writes the same element of D, so in place is safe).

* ``conj`` on A or B flips the sign of that operand's imaginary plane; the sign is folded into the
  launches' alpha. An operand of a real dtype (e.g. float64 inputs with a complex128 output) has no
  imaginary plane and takes part in two launches only; a D plane that no launch writes is zeroed.
* A real alpha and no C read (none given, or beta == 0): the launches write D's planes directly (alpha is
  folded into their alpha).
* Otherwise (complex alpha, or beta != 0 with a C): the product P is computed into a temporary of the
  complex compute type, packed in the order of D's strides (its own real plan, `real_plan(problem,
  strides)`), then ``D = alpha P + beta op_c(C)`` is one elementwise expression of the array library.

Supported ops (both ways): identity and conj on A, B and C, identity on D; any other op raises a KernelError
naming the operand (the CPU executor applies every op to complex numpy arrays).
"""
from __future__ import annotations

import contextlib
import warnings

from ..dtypes import is_complex, numpy_dtype
from ..errors import KernelError
from ..kernels.spec import KernelSpec
from ..plan.complex_paths import REAL_PLAN_CACHE_SIZE, check_complex_ops, fused_spec, real_plan
from ..plan.plan import Plan
from ..plan.problem import TensorInfo
from ..plan.target import device_target
from . import gpu_simt

_BY_ID: dict = {}  # (id(complex plan), d_strides) -> (plan, real plan): skips hashing the problem per call


def _real_plan_of(plan: Plan, d_strides: tuple[int, ...] | None = None) -> Plan:
    key = (id(plan), d_strides)
    hit = _BY_ID.get(key)
    if hit is not None and hit[0] is plan:
        return hit[1]
    rp = real_plan(plan.problem, d_strides)
    if len(_BY_ID) > 4 * REAL_PLAN_CACHE_SIZE:
        _BY_ID.clear()
    _BY_ID[key] = (plan, rp)  # holds the plan: its id cannot be reused meanwhile
    return rp


def _planes(x, t: TensorInfo):
    """(real plane, imaginary plane or None) of array `x` laid out as `t` (views, no copies)."""
    return (x.real, x.imag) if is_complex(t.dtype) else (x, None)


def _view(xp, x, modes, strides, ext):
    """A view of `x` with one axis per mode (in `modes`' order), `strides` in elements of x."""
    return xp.lib.stride_tricks.as_strided(x, shape=tuple(ext[m] for m in modes),
                                           strides=tuple(s * x.itemsize for s in strides))


def _temp_strides(d: TensorInfo, ext) -> tuple[tuple[int, ...], int]:
    """Packed strides over D's modes, fastest where D's stride is smallest (0 for extent 1), and the size."""
    st = [0] * len(d.modes)
    acc = 1
    for i in sorted(range(len(d.modes)), key=lambda i: (abs(d.strides[i]), i)):
        e = ext[d.modes[i]]
        st[i] = acc if e > 1 else 0
        acc *= e
    return tuple(st), acc


def execute_complex(plan: Plan, a, b, c, d, alpha=1.0, beta=0.0, stream=None, run=None, xp=None) -> None:
    """D = alpha * op_a(A) op_b(B) + beta * op_c(C) for a plan of complex compute type, as real launches.

    Args:
        plan: the complex plan (its problem's compute type is c64 or c128).
        a, b: the problem's A and B; c: C or None; d: the output (written in place).
        alpha, beta: scalars, complex allowed.
        stream: a cupy Stream for the launches and the elementwise work (default: the current stream).
        run: the per-launch executor ``run(plan, a, b, c, d, alpha, beta)`` (default:
            `gpu.execute` on `stream`); the CPU executor makes this a numpy emulation of the launches.
        xp: the array module of the arrays (default: cupy).

    Raises:
        KernelError: an op other than identity/conj on A, B or C, or any op on D.
    """
    problem = plan.problem
    c_used = c is not None and beta != 0 and problem.c is not None
    check_complex_ops(problem, c_used)
    if plan.M == 0 or plan.N == 0 or plan.batch == 0:
        return
    if run is None and xp is None and execute_fused(plan, a, b, c, d, alpha, beta, stream):
        return  # (one launch of the complex kernel)
    if xp is None:
        import cupy as xp
    if run is None:
        from . import gpu

        def run(p, a_, b_, c_, d_, al, be):
            gpu.execute(p, a_, b_, c_, d_, al, be, stream=stream)
    alpha, beta = complex(alpha), complex(beta)
    ext = dict(problem.extents)
    sa = -1.0 if problem.a.op.name == "conj" else 1.0
    sb = -1.0 if problem.b.op.name == "conj" else 1.0
    ar, ai = _planes(a, problem.a)
    br, bi = _planes(b, problem.b)
    # (coefficient, A plane, B plane) of each plane of the product; a missing plane is zero
    re_terms = [(1.0, ar, br), (-sa * sb, ai, bi)]
    im_terms = [(sb, ar, bi), (sa, ai, br)]
    re_terms = [t for t in re_terms if t[1] is not None and t[2] is not None]
    im_terms = [t for t in im_terms if t[1] is not None and t[2] is not None]

    def product(rplan, dr, di, scale):
        """scale * (A B) into the planes dr, di (di None: the real part only); False if di was not written."""
        for terms, dp in ((re_terms, dr), (im_terms, di)):
            if dp is None:
                continue
            for j, (coef, x, y) in enumerate(terms):
                run(rplan, x, y, None if j == 0 else dp, dp, scale * coef, 0.0 if j == 0 else 1.0)
        return di is None or bool(im_terms)

    ctx = stream if stream is not None and xp.__name__ == "cupy" else contextlib.nullcontext()
    with ctx:
        d_complex = is_complex(problem.d.dtype)
        if alpha.imag == 0 and not c_used:
            # (1) real alpha, no C: the launches write D's planes in place
            dr, di = _planes(d, problem.d)
            if not product(_real_plan_of(plan), dr, di, alpha.real):
                _view(xp, d, problem.d.modes, problem.d.strides, ext).imag[...] = 0
            return
        # (2) the product into a temporary of the complex compute type, then alpha P + beta op_c(C) into D
        st, size = _temp_strides(problem.d, ext)
        cdt = numpy_dtype(problem.compute)
        tmp = xp.empty(size, dtype=cdt)
        if not product(_real_plan_of(plan, st), tmp.real, tmp.imag, 1.0):
            tmp.imag[...] = 0
        p = _view(xp, tmp, problem.d.modes, st, ext)
        if alpha != 1:
            p *= cdt.type(alpha)
        if c_used:
            cs = problem.c.stride_of()
            cv = _view(xp, c, problem.d.modes, [cs[m] for m in problem.d.modes], ext)
            if problem.c.op.name == "conj":
                cv = xp.conj(cv)
            p += cdt.type(beta) * cv.astype(cdt, copy=False)
        dv = _view(xp, d, problem.d.modes, problem.d.strides, ext)
        dv[...] = p if d_complex else p.real


_FUSED_SPECS: dict = {}


def _fused_spec_for(plan: Plan, read_c: bool) -> KernelSpec | None:
    """The (cached) complex kernel of `plan`, built; None where it does not apply or does not compile (a
    RuntimeWarning then: the real launches compute the same)."""
    sm = device_target().sm_count
    key = (id(plan), read_c, sm)
    hit = _FUSED_SPECS.get(key)
    if hit is not None and hit[0] is plan:
        return hit[1]
    spec = None
    if is_complex(plan.problem.d.dtype):
        from ..kernels.build import build

        try:
            spec = fused_spec(plan, read_c, sm_count=sm)
            build(spec)
        except KernelError as e:
            first = (str(e).strip().splitlines() or [""])[0][:160]
            warnings.warn(f"gettpy: the complex kernel did not compile ({first}); running this contraction as real "
                          f"launches", RuntimeWarning, stacklevel=4)
            spec = None
    if len(_FUSED_SPECS) > 4096:
        _FUSED_SPECS.clear()
    _FUSED_SPECS[key] = (plan, spec)  # holds the plan: its id cannot be reused meanwhile
    return spec


def execute_fused(plan: Plan, a, b, c, d, alpha=1.0, beta=0.0, stream=None) -> bool:
    """D = alpha * op_a(A) op_b(B) + beta * op_c(C) for a complex plan in one launch of the complex kernel.

    Returns False (nothing launched) where the kernel does not apply: a real D, or an operand whose data
    pointer is not aligned to its element size (a complex view of a real buffer).
    """
    import numpy as np

    read_c = c is not None and beta != 0 and plan.layout_c is not None
    spec = _fused_spec_for(plan, read_c)
    if spec is None:
        return False
    ka, kb = (b, a) if plan.part.swapped else (a, b)
    ptrs = tuple(int(x.data.ptr) for x in (ka, kb, d)) + ((int(c.data.ptr),) if read_c else ())
    if not gpu_simt.aligned(spec, ptrs):
        return False
    gpu_simt.launch(spec, ptrs[0], ptrs[1], ptrs[3] if read_c else 0, ptrs[2], alpha, beta,
                    np.complex64 if spec.compute == "c64" else np.complex128, stream)
    return True


__all__ = ["execute_complex", "execute_fused"]
