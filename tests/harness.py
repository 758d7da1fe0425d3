"""Helpers shared by the tests (the one module test files import besides gettpy; tests/ is on sys.path).

* CPU checks: random non-zero inputs, a float64 reference, a per-dtype tolerance check (`assert_close`).
* TCCG helpers: the suite's table and its contractions at reduced extents, plans of 'C-A-B' contractions.
* GPU helpers (import cupy only when called): device arrays in f16/bf16/f32/f64, NaN-poisoned outputs, plans
  run with a forced tile (`run_forced`), and the data tables that the GPU tests and the compile tests share.
"""
from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from gettpy import ops
from gettpy.kernels.spec import TileConfig
from gettpy.plan import ContractionProblem, TensorInfo, make_plan
from tccg.suite import TABLE

#: tolerance relative to max |ref| (the reference is computed in float64/complex128)
RTOL = {
    np.dtype(np.float16): 1e-2,
    np.dtype(np.float32): 1e-5,
    np.dtype(np.float64): 1e-12,
    np.dtype(np.complex64): 1e-5,
    np.dtype(np.complex128): 1e-12,
}

DTYPES = (np.float16, np.float32, np.float64, np.complex64, np.complex128)


def assert_close(got, ref, dtype=None, scale=None) -> None:
    """Assert `got` matches the float64/complex128 reference `ref` within the tolerance of `dtype`.

    The tolerance is relative to max |ref| (absolute 1 when ref is all zeros or empty), or to `scale`
    where that is larger (random tests pass `magnitude(...)`, the size of the terms summed, so that a
    result that cancels to nearly 0 does not make the check flaky); positions where ref is finite but
    got is NaN/inf fail regardless of the tolerance.
    """
    got_a = np.asarray(got)
    ref_a = np.asarray(ref)
    dt = np.dtype(dtype if dtype is not None else got_a.dtype)
    tol = RTOL.get(dt)
    if tol is None:
        raise AssertionError(f"no tolerance for dtype {dt}")
    assert got_a.shape == ref_a.shape, f"shape {got_a.shape} != reference shape {ref_a.shape}"
    if ref_a.size == 0:
        return
    wide = np.complex128 if np.iscomplexobj(got_a) or np.iscomplexobj(ref_a) else np.float64
    g = np.atleast_1d(got_a.astype(wide))
    r = np.atleast_1d(ref_a.astype(wide))
    bad = np.isfinite(r) & ~np.isfinite(g)
    assert not bad.any(), (f"got non-finite values where the reference is finite at "
                           f"{np.argwhere(bad)[:5].tolist()}: got {g[bad][:5]}, ref {r[bad][:5]}")
    finite = np.isfinite(r)
    scale = max(float(np.max(np.abs(r[finite]), initial=0.0)), float(scale or 0.0)) or 1.0
    err = np.abs(g - r)
    err[~finite] = 0.0
    worst = float(err.max(initial=0.0))
    if worst > tol * scale:
        idx = np.unravel_index(int(np.argmax(err)), err.shape)
        raise AssertionError(f"max error {worst:.3e} > {tol:.0e} * max|ref| ({scale:.3e}) for {dt} at index "
                             f"{tuple(int(i) for i in idx)}: got {g[idx]!r}, ref {r[idx]!r}")


def record_calls(monkeypatch, module, name: str) -> list:
    """A list that gets the first argument of every call of `module.name` (still called), for the test's life."""
    seen = []
    real = getattr(module, name)

    def recorded(*args, **kw):
        seen.append(args[0])
        return real(*args, **kw)

    monkeypatch.setattr(module, name, recorded)
    return seen


def nonzero(rng: np.random.Generator, shape, dtype=np.float64) -> np.ndarray:
    """Random values with |x| in [0.5, 1.5) and random signs (never 0), in `dtype`."""
    shape = tuple(shape)
    mag = rng.uniform(0.5, 1.5, size=shape)
    x = np.where(rng.random(shape) < 0.5, -mag, mag)
    if np.issubdtype(np.dtype(dtype), np.complexfloating):
        mag2 = rng.uniform(0.5, 1.5, size=shape)
        x = x + 1j * np.where(rng.random(shape) < 0.5, -mag2, mag2)
    return np.asarray(x).astype(dtype)


def reference(subscripts, *operands, **kw):
    """np.einsum in float64 (complex128 where any operand is complex) of the given operands."""
    wide = np.complex128 if any(np.iscomplexobj(np.asarray(x)) for x in operands) else np.float64
    return np.einsum(subscripts, *[np.asarray(x).astype(wide) for x in operands], **kw)


def magnitude(subscripts, *operands, **kw) -> float:
    """max over the result of the sum of |terms|: einsum of the operands' absolute values, in float64."""
    try:
        return float(np.max(np.einsum(subscripts, *[np.abs(np.asarray(x)).astype(np.float64) for x in operands],
                                      **kw), initial=0.0))
    except (ValueError, TypeError):
        return 0.0


def packed_problem(contraction: str, ext: dict[str, int], dtype: str = "f16", order: str = "F"):
    """The ContractionProblem of 'C-A-B' (e.g. 'abc-bda-dc') on packed tensors of `order` (F: first mode
    fastest, TCCG's convention; C: last fastest), beta = 0."""
    from gettpy.plan.problem import ContractionProblem, TensorInfo

    c, a, b = contraction.split("-")

    def info(name, modes):
        seq = modes if order == "F" else modes[::-1]
        st, acc = {}, 1
        for m in seq:
            st[m] = acc
            acc *= ext[m]
        return TensorInfo(name, tuple(modes), tuple(st[m] for m in modes), dtype)
    return ContractionProblem(info("A", a), info("B", b), None, info("D", c), tuple(sorted(ext.items())))


def dense_problem(eq: str, ext: dict[str, int], dtype: str, order: str = "C"):
    """The ContractionProblem of binary einsum `eq` ('ab,bc->ac') on dense tensors of extents `ext` in `order`
    (C: last mode fastest; F: first), beta = 0."""
    from gettpy.plan.problem import ContractionProblem, TensorInfo

    lhs, out = eq.split("->")
    ins = lhs.split(",")

    def info(name, modes):
        seq = modes[::-1] if order == "C" else modes
        st, acc = {}, 1
        for m in seq:
            st[m] = acc
            acc *= ext[m]
        return TensorInfo(name, tuple(modes), tuple(st[m] for m in modes), dtype)

    return ContractionProblem(info("A", ins[0]), info("B", ins[1]), None, info("D", out), tuple(sorted(ext.items())))


def extents_of(eq: str, shapes) -> dict[str, int]:
    """Mode -> extent of binary einsum `eq`'s inputs of `shapes`."""
    ins = eq.split("->")[0].split(",")
    return {m: e for modes, shp in zip(ins, shapes, strict=True) for m, e in zip(modes, shp, strict=True)}


def short_name(dtype) -> str:
    """The short name of a float16 or float32 numpy dtype ("f16", "f32")."""
    return {np.dtype(np.float16): "f16", np.dtype(np.float32): "f32"}[np.dtype(dtype)]


def fresh_caches() -> None:
    """Empty the plan and einsum program caches (tests that change the planner's thresholds)."""
    from gettpy.plan.cache import clear_plan_cache

    clear_plan_cache()
    importlib.import_module("gettpy.einsum").clear_program_cache()


# ----------------------------------------------------------------------------------------------- helpers
def info_of(name, modes, x, op=None, dtype=None) -> TensorInfo:
    """The TensorInfo of array `x` (numpy or CuPy) with `modes`, from its real strides and pointer alignment."""
    from gettpy.backends import data_ptr
    from gettpy.dtypes import short_name as dtype_name
    from gettpy.layouts.descriptor import pointer_alignment

    return TensorInfo(name, tuple(modes), tuple(s // x.itemsize for s in x.strides), dtype or dtype_name(x.dtype),
                      pointer_alignment(data_ptr(x)), op or ops.identity)


def problem_of(subs, a, b, c, d, op=(None,) * 4, compute="") -> ContractionProblem:
    """The ContractionProblem of 'ab,bc->ac'-style `subs` on arrays a, b, c (or None), d; `op` per operand."""
    lhs, md = subs.split("->")
    ma, mb = lhs.split(",")
    ext = {}
    for modes, x in ((ma, a), (mb, b), (md, d)):
        ext.update(zip(modes, x.shape, strict=True))
    return ContractionProblem(info_of("A", ma, a, op[0]), info_of("B", mb, b, op[1]),
                              None if c is None else info_of("C", md, c, op[2]), info_of("D", md, d, op[3]),
                              tuple(sorted(ext.items())), compute)


# ------------------------------------------------------------------- TCCG suite at reduced extents
# (num, group, contraction, extents in alphabetical mode order, M, N, K) -- full double-precision sizes
TCCG48 = list(TABLE)


#: largest number of elements of any one tensor at the reduced extents
MAX_ELEMENTS = 5000


def einsum_of(contraction: str) -> str:
    """'abc-bda-dc' -> 'bda,dc->abc'."""
    c, a, b = contraction.split("-")
    return f"{a},{b}->{c}"


def full_extents(contraction: str, extents: tuple[int, ...]) -> dict[str, int]:
    modes = sorted(set(contraction.replace("-", "")))
    assert len(modes) == len(extents), f"{contraction}: {len(modes)} modes but {len(extents)} extents"
    return dict(zip(modes, extents, strict=True))


def reduced_extents(num: int, contraction: str, extents: tuple[int, ...]) -> dict[str, int]:
    """Every extent scaled by one factor so that each tensor has <= MAX_ELEMENTS elements (extent >= 2).

    One mode per contraction (which one depends on `num`) is made odd, so that no test sees only
    even, power-of-two-friendly extents.
    """
    full = full_extents(contraction, extents)
    tensors = contraction.split("-")

    def at(s: float) -> dict[str, int]:
        return {m: max(2, round(e * s)) for m, e in full.items()}

    def fits(ext: dict[str, int]) -> bool:
        return all(math.prod(ext[m] for m in t) <= MAX_ELEMENTS for t in tensors)

    s = 1.0
    while not fits(at(s)):
        s *= 0.97
    ext = at(s)
    modes = sorted(ext)
    m = modes[num % len(modes)]
    if ext[m] % 2 == 0:
        ext[m] += -1 if ext[m] > 2 else 1
        if not fits(ext):
            ext[m] -= 2 if ext[m] > 3 else 0
    return ext


# ---------------------------------------------------------------- plans of TCCG-style contractions
def laid_out(rng: np.random.Generator, shapes, dtype, layout: str) -> list[np.ndarray]:
    """Normal random operands of `shapes` in `layout`: "C", "F", or "view" (every other element along the first
    axis of a larger random array: a strided view that is not contiguous in any order)."""
    out = []
    for shp in shapes:
        x = rng.standard_normal(shp).astype(dtype)
        if layout == "F":
            x = np.asfortranarray(x)
        elif layout == "view":
            big = rng.standard_normal((2 * shp[0],) + tuple(shp[1:])).astype(dtype)
            big[::2] = x
            x = big[::2]
        out.append(x)
    return out


def assert_each_close(eq: str, got, operands, tol: float) -> None:
    """Every element of `got` within `tol` of numpy's float64 einsum, relative to the sum of its terms' magnitudes
    (at least 1)."""
    ref = np.einsum(eq, *[o.astype(np.float64) for o in operands])
    scale = np.einsum(eq, *[np.abs(o.astype(np.float64)) for o in operands])
    assert np.all(np.abs(np.asarray(got, np.float64) - ref) <= tol * np.maximum(scale, 1))


def einsum_layouts(sub: str, ext: dict[str, int], dts, order: str = "C", c: str | None = None):
    """The kernel's decided layouts of binary einsum `sub` ('ik,jk->ij': A, B, D) on packed operands of `order` (C:
    last mode fastest), A the first input: (A, B, C or None, D layouts, (A, B, C, D) dtypes, (M, N, K, batch)).
    dts: the A, B, D short dtype names; c: C's, where C is read."""
    from gettpy.kernels.spec import ITEMSIZE
    from gettpy.layouts.descriptor import build_operand_layout

    (a, b), d = sub.split("->")[0].split(","), sub.split("->")[1]
    groups = {"m": tuple(x for x in d if x in a and x not in b), "n": tuple(x for x in d if x in b and x not in a),
              "k": tuple(x for x in a if x in b and x not in d), "b": tuple(x for x in d if x in a and x in b)}

    def lay(name, modes, dims, dt):
        st = dict(zip(modes, packed_strides([ext[m] for m in modes], order), strict=True))
        return build_operand_layout(name, {g: groups[g] for g in dims}, ext, st, ITEMSIZE[dt])

    la, lb, ld = lay("A", a, "mkb", dts[0]), lay("B", b, "nkb", dts[1]), lay("D", d, "mnb", dts[2])
    lc = lay("C", d, "mnb", c) if c else None
    size = {g: math.prod(ext[m] for m in ms) for g, ms in groups.items()}
    return la, lb, lc, ld, (dts[0], dts[1], c, dts[2]), (size["m"], size["n"], size["k"], size["b"])


def packed_strides(shape, order):
    out, acc = [], 1
    dims = list(shape) if order == "F" else list(reversed(shape))
    for e in dims:
        out.append(acc)
        acc *= e
    return tuple(out if order == "F" else reversed(out))


def tccg_plan(contraction, extents, dt="f16", out=None, order="F", with_c=False, op_a=None, op_d=None):
    """Plan of a TCCG-style contraction 'C-A-B' (extents in alphabetical order of the letters)."""
    c, a, b = contraction.split("-")
    ext = dict(zip(sorted(set(a + b + c)), extents, strict=True))
    out = out or dt

    def ti(name, modes, d, op=None):
        return TensorInfo(name, tuple(modes), packed_strides([ext[m] for m in modes], order), d,
                          op=op or ops.identity)

    p = ContractionProblem(ti("A", a, dt, op_a), ti("B", b, dt), ti("C", c, out) if with_c else None,
                           ti("D", c, out, op_d), tuple(sorted(ext.items())))
    return make_plan(p)


# ---------------------------------------------------------------- semirings: brute-force reference
def brute(subs: str, sr, *xs) -> np.ndarray:
    ins, out = subs.split("->")
    ins = ins.split(",")
    modes = sorted(set("".join(ins)))
    ext = {m: e for t, x in zip(ins, xs, strict=True) for m, e in zip(t, x.shape, strict=True)}
    prod = None
    for t, x in zip(ins, xs, strict=True):
        v = np.einsum(f"{t}->{''.join(m for m in modes if m in t)}", np.asarray(x, dtype=np.float64))
        v = v.reshape([ext[m] if m in t else 1 for m in modes])
        prod = v if prod is None else sr.numpy_mul(prod, v)
    prod = np.broadcast_to(prod, [ext[m] for m in modes])
    summed = tuple(i for i, m in enumerate(modes) if m not in out)
    r = sr.reduce(prod, axis=summed) if summed else prod
    return np.einsum(f"{''.join(m for m in modes if m in out)}->{out}", r)


# --------------------------------------------------------------- GPU: device arrays, plans, checks
GPU_RTOL = {"f16": 2e-3, "bf16": 1e-2, "f32": 2e-5, "f64": 1e-12}


NP = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "bf16": np.uint16}


def to_bf16_bits(x: np.ndarray) -> np.ndarray:
    """float -> bf16 bit patterns (round to nearest even) as uint16."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16).reshape(np.shape(x))


def from_bf16_bits(x: np.ndarray) -> np.ndarray:
    return (np.asarray(x).astype(np.uint32) << 16).view(np.float32)


def host_values(x, dtype: str) -> np.ndarray:
    """float64 values of a cupy array (decoding bf16 bits)."""
    import cupy as cp

    h = cp.asnumpy(x)
    return (from_bf16_bits(h) if dtype == "bf16" else h).astype(np.float64)


def device_array(values: np.ndarray, dtype: str, order: str = "C"):
    """A cupy array of `values` in `dtype` and memory `order` ('C', 'F')."""
    import cupy as cp

    v = to_bf16_bits(values) if dtype == "bf16" else values.astype(NP[dtype])
    return cp.array(v, order=order)  # keeps 0-d arrays 0-d


def poisoned(shape, dtype: str, order: str = "C"):
    import cupy as cp

    if dtype == "bf16":
        return cp.full(shape, 0x7FC0, dtype=cp.uint16, order=order)  # bf16 NaN
    return cp.full(shape, np.nan, dtype=NP[dtype], order=order)


def tinfo(name, modes, x, dtype, op=None):
    from gettpy.layouts.descriptor import pointer_alignment
    from gettpy.ops import identity
    from gettpy.plan import TensorInfo

    item = x.itemsize
    strides = tuple(s // item for s in x.strides)
    return TensorInfo(name, tuple(modes), strides, dtype, pointer_alignment(int(x.data.ptr)), op or identity)


def run_contraction(modes_a, modes_b, modes_d, a, b, d, dt_in, dt_out, c=None, alpha=1.0, beta=0.0, ops=(None,) * 4,
                    dt_b=None, dt_c=None):
    """Plan (heuristic planner, no front end) and execute on the GPU; returns the plan."""
    import cupy as cp

    from gettpy.backends import gpu
    from gettpy.plan import ContractionProblem, make_plan

    ext = {}
    for modes, x in ((modes_a, a), (modes_b, b), (modes_d, d)):
        for m, e in zip(modes, x.shape, strict=True):
            ext[m] = e
    p = ContractionProblem(tinfo("A", modes_a, a, dt_in, ops[0]), tinfo("B", modes_b, b, dt_b or dt_in, ops[1]),
                           None if c is None else tinfo("C", modes_d, c, dt_c or dt_out, ops[2]),
                           tinfo("D", modes_d, d, dt_out, ops[3]), tuple(sorted(ext.items())))
    plan = make_plan(p)
    gpu.execute(plan, a, b, c, d, alpha, beta)
    cp.cuda.Device().synchronize()
    return plan


def reference_modes(modes_a, modes_b, modes_d, a, b, c=None, alpha=1.0, beta=0.0, ops=(None,) * 4):
    """(ref, scale): op_d(alpha * einsum(op_a(A), op_b(B)) + beta * op_c(C)) in float64, and the term magnitude."""
    f = [(o if o is not None else (lambda x: x)) for o in ops]
    sub = f"{modes_a},{modes_b}->{modes_d}"
    fa, fb = f[0](a), f[1](b)
    r = alpha * np.einsum(sub, fa, fb, optimize=True)
    s = abs(alpha) * np.einsum(sub, np.abs(fa), np.abs(fb), optimize=True)
    if c is not None and beta != 0:
        fc = f[2](c)
        r = r + beta * fc
        s = s + abs(beta) * np.abs(fc)
    r = f[3](r)
    return r, s


def check(got, ref, scale, dt_out, what=""):
    got = np.asarray(got, dtype=np.float64)
    assert got.shape == ref.shape
    if ref.size == 0:
        return
    finite = np.isfinite(ref)
    bad = finite & ~np.isfinite(got)
    assert not bad.any(), f"{what}: non-finite output at {np.argwhere(bad)[:5].tolist()} (unwritten or overflow)"
    tol = GPU_RTOL[dt_out] * max(float(np.max(scale[finite], initial=0.0)),
                                 float(np.max(np.abs(ref[finite]), initial=0)), 1e-30)
    err = np.where(finite, np.abs(got - ref), 0.0)
    worst = float(err.max())
    if worst > tol:
        i = np.unravel_index(int(np.argmax(err)), err.shape)
        raise AssertionError(f"{what}: max error {worst:.3e} > tol {tol:.3e} at {i}: got {got[i]!r}, ref {ref[i]!r}")


def rand(rng, shape, positive=False):
    mag = rng.uniform(0.5, 1.5, size=shape)
    return mag if positive else np.where(rng.random(shape) < 0.5, -mag, mag)


def rounded(x: np.ndarray, dtype: str) -> np.ndarray:
    """x as the kernel sees it after conversion to `dtype`, in float64."""
    if dtype == "bf16":
        return from_bf16_bits(to_bf16_bits(x)).astype(np.float64)
    return x.astype(NP[dtype]).astype(np.float64)


def contract_and_check(rng, modes_a, modes_b, modes_d, ext, dt_in, dt_out, order="C", with_c=False, alpha=1.0,
                       beta=0.0, ops=(None,) * 4, positive=False, what=""):
    sa = tuple(ext[m] for m in modes_a)
    sb = tuple(ext[m] for m in modes_b)
    sd = tuple(ext[m] for m in modes_d)
    ha, hb = rounded(rand(rng, sa, positive), dt_in), rounded(rand(rng, sb, positive), dt_in)
    a, b = device_array(ha, dt_in, order), device_array(hb, dt_in, order)
    c = hc = None
    if with_c:
        hc = rounded(rand(rng, sd, positive), dt_out)
        c = device_array(hc, dt_out, order)
    d = poisoned(sd, dt_out, order)
    fns = [None if o is None else o.numpy for o in ops]
    if dt_in in ("f16", "bf16"):  # the mma path applies op_a/op_b in smem: op(x) is rounded to the input type
        for i in (0, 1):
            if fns[i] is not None:
                fns[i] = (lambda f: lambda x: rounded(f(x), dt_in))(fns[i])
    opsx = tuple(None if o is None else o for o in ops)
    plan = run_contraction(modes_a, modes_b, modes_d, a, b, d, dt_in, dt_out, c, alpha, beta, opsx)
    ref, scale = reference_modes(modes_a, modes_b, modes_d, ha, hb, hc, alpha, beta, fns)
    check(host_values(d, dt_out), ref, scale, dt_out, what or f"{modes_a},{modes_b}->{modes_d}")
    return plan


# ------------------------------------------------------------------- GPU: plans with a forced tile
def sm90() -> bool:
    import cupy

    return str(cupy.cuda.Device().compute_capability) == "90"


def _forced_plan(modes_a, modes_b, modes_d, a, b, c, d, dt_in, dt_out, ops, swap=False):
    """The plan of the contraction (swap: with the planner's partition's A and B trading roles, m and n too)."""
    from gettpy.plan import ContractionProblem, make_plan
    from gettpy.plan.partition import partition

    ext = {}
    for modes, x in ((modes_a, a), (modes_b, b), (modes_d, d)):
        for m, e in zip(modes, x.shape, strict=True):
            ext[m] = e
    p = ContractionProblem(tinfo("A", modes_a, a, dt_in, ops[0]), tinfo("B", modes_b, b, dt_in, ops[1]),
                           None if c is None else tinfo("C", modes_d, c, dt_out, ops[2]),
                           tinfo("D", modes_d, d, dt_out, ops[3]), tuple(sorted(ext.items())))
    if not swap:
        return make_plan(p)
    return make_plan(p, part=partition(p).traded())


def run_forced(rng, modes_a, modes_b, modes_d, ext, tile, dt_in="f16", dt_out="f16", order="C", with_c=False,
               alpha=1.0, beta=0.0, ops=(None,) * 4, swap=False):
    """Contract with `tile` forced (any path; wgmma tiles skip off sm_90), check against float64; returns
    the KernelSpec that ran. swap: on the planner's partition with A and B trading roles."""
    import cupy as cp

    from gettpy.backends import gpu
    from gettpy.plan.tiles import kernel_spec

    if (tile.wgmma or tile.rows) and not sm90():
        pytest.skip("wgmma and row-stream (bulk copy) kernels need an sm_90 device")
    sa, sb, sd = (tuple(ext[m] for m in t) for t in (modes_a, modes_b, modes_d))
    ha, hb = rounded(rand(rng, sa), dt_in), rounded(rand(rng, sb), dt_in)
    a, b = device_array(ha, dt_in, order), device_array(hb, dt_in, order)
    c = hc = None
    if with_c:
        hc = rounded(rand(rng, sd), dt_out)
        c = device_array(hc, dt_out, order)
    d = poisoned(sd, dt_out, order)
    plan = _forced_plan(modes_a, modes_b, modes_d, a, b, c, d, dt_in, dt_out, ops, swap)
    read_c = with_c and beta != 0
    spec = kernel_spec(plan, read_c, tile=tile)
    assert spec.tile == tile
    ka, kb = (b, a) if plan.part.swapped else (a, b)
    gpu.launch(spec, int(ka.data.ptr), int(kb.data.ptr), int(c.data.ptr) if read_c else 0, int(d.data.ptr),
               alpha, beta)
    cp.cuda.Device().synchronize()
    fns = [None if o is None else o.numpy for o in ops]
    for i in (0, 1):  # ops on A and B are applied in shared memory: op(x) is rounded to the input type
        if fns[i] is not None:
            fns[i] = (lambda f: lambda x: rounded(f(x), dt_in))(fns[i])
    ref, scale = reference_modes(modes_a, modes_b, modes_d, ha, hb, hc, alpha, beta, fns)
    check(host_values(d, dt_out), ref, scale, dt_out, f"{modes_a},{modes_b}->{modes_d} {ext} {tile}")
    return spec


# (A modes, B modes, D modes) in C order: the four K-major / MN-major combinations of A and B
LAYOUTS = [("ik", "jk", "ij"), ("ik", "kj", "ij"), ("ki", "jk", "ij"), ("ki", "kj", "ij"), ("ik", "kj", "ji")]


# --------------------------------------------------------------------------- GPU: TCCG #2's family
def tccg2_family(ext, din, dout):
    """TCCG #2's family (C[a, b, c] = A[d, c, a] B[b, d], column-major) at `ext` = (a, b, c, d): (a, b, d, ha, hb, p),
    the device operands (torch tensors for bf16, else CuPy), D filled with NaN, the inputs' values on the host as
    rounded to `din`, and the ContractionProblem."""
    import cupy as cp

    from gettpy.plan.problem import ContractionProblem, TensorInfo

    ea, eb, ec, ed = ext
    sa, sb, sd = (ed, ec, ea), (eb, ed), (ea, eb, ec)
    rng = np.random.default_rng(sum(ext))
    ha = rng.uniform(-1, 1, sa).astype(np.float32)
    hb = rng.uniform(-1, 1, sb).astype(np.float32)
    if din == "bf16":
        torch = pytest.importorskip("torch")
        # (column-major bf16 tensors: the transposed C-order copy, its axes reversed)
        a = torch.from_numpy(np.ascontiguousarray(ha.T)).to("cuda", torch.bfloat16).permute(2, 1, 0)
        b = torch.from_numpy(np.ascontiguousarray(hb.T)).to("cuda", torch.bfloat16).permute(1, 0)
        ha, hb = (t.float().cpu().numpy() for t in (a, b))  # (the values as rounded to bf16)
        d = torch.full(sd[::-1], float("nan"), device="cuda", dtype=torch.bfloat16).permute(2, 1, 0)
        torch.cuda.synchronize()  # (made on torch's stream; the kernels run on CuPy's)
    else:
        ha, hb = ha.astype(np.float16), hb.astype(np.float16)
        a, b = cp.asarray(np.asfortranarray(ha)), cp.asarray(np.asfortranarray(hb))
        d = cp.full(sd, np.nan, dtype=np.float16 if dout == "f16" else np.float32, order="F")

    def info(n, modes, shape, dt):
        st = np.cumprod((1,) + shape[:-1]).tolist()
        return TensorInfo(n, tuple(modes), tuple(int(x) for x in st), dt)
    p = ContractionProblem(info("A", "dca", sa, din), info("B", "bd", sb, din), None, info("D", "abc", sd, dout),
                           tuple(sorted(zip("abcd", ext, strict=True))))
    return a, b, d, ha, hb, p


def check_tccg2(d, ha, hb, din, dout):
    """D against numpy float64 at every element."""
    import cupy as cp

    got = (d.float().cpu().numpy() if din == "bf16" else cp.asnumpy(d)).astype(np.float64)
    ref = np.einsum("dca,bd->abc", ha.astype(np.float64), hb.astype(np.float64))
    tol = {"f16": 2e-3, "bf16": 1.6e-2, "f32": 1e-4}[dout] * np.sqrt(ha.shape[0])
    np.testing.assert_allclose(got, ref, rtol=0, atol=tol)


# --------------------------------------- tables shared by GPU and compile tests: L2 prefetch tiles
PREFETCH_CASES = [  # (id, A, B, D modes, extents, tile kwargs, dtypes in/out, order)
    # #2's shape, smaller: B k-major rows of 312 f16 (624 bytes), M = 24 on a 32-row tile
    ("mma_kmajor_rows", "ik", "jk", "ij", {"i": 24, "j": 5000, "k": 312},
     dict(bm=32, bn=256, bk=64, stages=3, wm=32, wn=32, persistent=True), ("f16", "f16"), "C"),
    ("mma_partial", "ki", "kj", "ij", {"i": 200, "j": 333, "k": 100},
     dict(bm=128, bn=128, bk=32, stages=3, wm=64, wn=64), ("f16", "f32"), "F"),
    # (an odd inner extent: 2-element (4-byte) vectors of f16)
    ("mma_4byte_copies", "ik", "jk", "ij", {"i": 130, "j": 190, "k": 46},
     dict(bm=64, bn=64, bk=32, stages=2, wm=32, wn=32), ("f16", "f16"), "C"),
    ("simt_f32_stream_k", "ki", "kj", "ij", {"i": 700, "j": 520, "k": 1000},
     dict(bm=128, bn=64, bk=16, stages=4, tm=8, tn=8, min_blocks=3, sk_ctas=16), ("f32", "f32"), "F"),
    # (f32 rows of 6 elements: 8-byte vectors)
    ("simt_8byte_copies", "ik", "jk", "ij", {"i": 300, "j": 100, "k": 6},
     dict(bm=64, bn=64, bk=8, stages=2, tm=4, tn=4), ("f32", "f32"), "C"),
    ("ws_cp_async", "ik", "kj", "ji", {"i": 24, "j": 3000, "k": 312},
     dict(bm=128, bn=128, bk=64, stages=4, wm=64, wn=128, wgmma=True, ws=True, persistent=True), ("f16", "f16"),
     "F"),
]


# -------------------------------------------------------------------------------- resident-A tiles
RESIDENT_CASES = [  # (id, A, B, D modes, extents, tile kwargs, dtypes in/out, order): M = i, A read m-contiguous
    # #2's shape, smaller: A of 24 x 312, B k-major rows of 624 bytes
    ("mma_persistent", "ik", "kj", "ji", {"i": 24, "j": 5000, "k": 312},
     dict(bm=32, bn=256, bk=64, stages=3, wm=32, wn=32, persistent=True), ("f16", "f16"), "F"),
    ("mma_partial_f32out", "ik", "jk", "ji", {"i": 20, "j": 777, "k": 100},
     dict(bm=32, bn=128, bk=32, stages=3, wm=32, wn=32), ("f16", "f32"), "F"),
    ("mma_stream_k", "ki", "jk", "ij", {"i": 32, "j": 1500, "k": 400},
     dict(bm=32, bn=128, bk=32, stages=3, wm=32, wn=32, sk_ctas=8), ("bf16", "bf16"), "C"),
    ("mma_prefetch", "ik", "kj", "ji", {"i": 24, "j": 3000, "k": 312},
     dict(bm=32, bn=256, bk=64, stages=4, wm=32, wn=32, persistent=True, l2_prefetch=256), ("f16", "f16"), "F"),
    ("simt_persistent", "ik", "kj", "ji", {"i": 24, "j": 4000, "k": 312},
     dict(bm=32, bn=128, bk=32, stages=3, tm=4, tn=4, persistent=True), ("f32", "f32"), "F"),
    ("simt_partial", "ki", "kj", "ij", {"i": 30, "j": 500, "k": 45},
     dict(bm=32, bn=64, bk=16, stages=2, tm=4, tn=4), ("f32", "f32"), "C"),
    ("simt_f64", "ik", "jk", "ji", {"i": 16, "j": 900, "k": 70},
     dict(bm=16, bn=64, bk=8, stages=3, tm=2, tn=4, persistent=True), ("f64", "f64"), "F"),
    # A of 21 x 100, columns of 42 bytes: a flat panel (one run of every k row, read in aligned words)
    ("mma_flat_panel", "ik", "jk", "ji", {"i": 21, "j": 777, "k": 100},
     dict(bm=32, bn=128, bk=32, stages=3, wm=32, wn=32, persistent=True), ("f16", "f16"), "F"),
]


# ---------------------------------------------------------------------------- ops on mma fragments
FRAG_OP_CASES = [  # (id, A, B, D modes, extents, tile kwargs, dtypes in/out, order): M = i
    ("narrow_resident", "ik", "kj", "ji", {"i": 24, "j": 5000, "k": 312},
     dict(bm=32, bn=256, bk=64, stages=3, wm=32, wn=32, persistent=True, resident_a=True, l2_prefetch=128),
     ("f16", "f16"), "F"),
    ("partial_f32out", "ki", "kj", "ij", {"i": 200, "j": 333, "k": 100},
     dict(bm=128, bn=128, bk=32, stages=3, wm=64, wn=64), ("f16", "f32"), "F"),
    ("bf16_stream_k", "ik", "jk", "ij", {"i": 256, "j": 700, "k": 400},
     dict(bm=64, bn=128, bk=32, stages=3, wm=32, wn=64, sk_ctas=8), ("bf16", "bf16"), "C"),
    ("mmajor_a_persistent", "ik", "jk", "ij", {"i": 300, "j": 200, "k": 77},
     dict(bm=96, bn=128, bk=32, stages=2, wm=48, wn=64, persistent=True), ("f16", "f16"), "F"),
]


def inf_at_zero():
    import numpy as np

    from gettpy import ops

    return ops.custom("(x == T(0) ? T(1) / x : x)", numpy=lambda x: np.where(x == 0, np.inf, x),
                      name="inf_at_zero")


# -------------------------------------------------------------------------- row-stream tile shapes
ROWS_SHAPES = [  # (bm, bn, stages, parts, rows_run)
    (64, 24, 4, 4, 8), (64, 24, 2, 4, 8), (64, 24, 3, 2, 8), (64, 16, 4, 1, 8), (32, 24, 4, 2, 8), (128, 24, 2, 2, 16),
    (64, 24, 4, 4, 4), (64, 24, 3, 4, 1), (64, 32, 3, 4, 8), (64, 16, 4, 2, 8), (64, 8, 4, 4, 2),
]


# ------------------------------------------------------------------------------- row-stream plans
def colmajor_plan(ma, mb, md, ext, din="f16", dout="f16", op_a=None):
    """The heuristic plan of D[md] = A[ma] B[mb] on column-major tensors of extents `ext`."""
    def ti(name, modes, dt, op=None):
        shape = [ext[m] for m in modes]
        st = np.cumprod([1] + shape[:-1]).tolist()  # column-major
        return TensorInfo(name, tuple(modes), tuple(int(x) for x in st), dt, op=op or ops.identity)

    return make_plan(ContractionProblem(ti("A", ma, din, op_a), ti("B", mb, din), None, ti("D", md, dout),
                                        tuple(sorted(ext.items()))))


def rows_tile(bm=64, bn=24, stages=4, parts=4, run=8):
    """A persistent row-stream tile (TileConfig.rows = parts, rows_run = run)."""
    return TileConfig(bm, bn, 16, stages, wm=16, wn=bn, persistent=True, rows=parts, rows_run=run)


#: TCCG #2 (abc-dca-bd) at its full size
TCCG2_EXTENTS = {"a": 312, "b": 24, "c": 296, "d": 312}


# ------------------------------------------------------------------------------------ compile tests
#: (einsum, extents, dtype, memory order) that plan/traffic.py restages on the default target: shapes in no
#: benchmark whose output's stride-1 mode differs from the large input's, and whose odd extents leave no
#: interleaving of the two (TCCG's intensli families at other, odd sizes)
RESTAGED = [
    ("ecbfa,fd->abcde", {"a": 23, "b": 16, "c": 11, "d": 23, "e": 20, "f": 15}, "f16", "F"),
    ("efcad,bf->abcde", {"a": 22, "b": 25, "c": 12, "d": 18, "e": 21, "f": 12}, "f16", "C"),
    ("efbad,cf->abcde", {"a": 21, "b": 17, "c": 12, "d": 17, "e": 21, "f": 14}, "f32", "C"),
    ("dbea,ec->abcd", {"a": 38, "b": 41, "c": 24, "d": 32, "e": 35}, "f16", "F"),
    ("dbea,ec->abcd", {"a": 38, "b": 41, "c": 24, "d": 32, "e": 35}, "f32", "C"),
    ("bda,dc->abc", {"a": 158, "b": 127, "c": 25, "d": 152}, "f16", "F"),
    ("bda,dc->abc", {"a": 158, "b": 127, "c": 25, "d": 154}, "f32", "F"),
]


def allow_split_k(monkeypatch) -> None:
    """Split-K on any grid, of any K, cutting any run (the planner's thresholds are for the GPU's sizes): the
    thresholds patched where plan/split.py decides, and the least K where plan/schedule.py's fold reads it too."""
    from gettpy.plan import schedule as sched
    from gettpy.plan import split

    monkeypatch.setattr(split, "SPLIT_MAX_WAVE", 1e9)
    monkeypatch.setattr(split, "MIN_RUN", 1)
    for mod in (sched, split):
        monkeypatch.setattr(mod, "SPLIT_MIN_K", 1)
