"""Complex contractions as real GETT launches (gettpy.backends.gpu_complex), checked on the CPU.

`execute_complex` takes the per-launch executor and the array module as parameters: here every real launch
runs on the CPU executor (`gettpy.backends.cpu.execute`) on numpy's ``x.real`` / ``x.imag`` views, which are
strided views with doubled strides exactly like CuPy's. So these tests check the decomposition itself (the
real problem and plan, the launch sequence and its signs, the temporary and the elementwise epilogue)
against np.einsum in complex128, without a GPU; tests/gpu/test_gpu_complex.py runs the same on the kernel.
"""
from __future__ import annotations

import numpy as np
import pytest
from harness import assert_close, magnitude, nonzero, problem_of, reference

import gettpy
from gettpy import ops
from gettpy.backends import cpu, gpu, gpu_complex, staged
from gettpy.backends.gpu_complex import execute_complex
from gettpy.dtypes import is_complex
from gettpy.errors import KernelError
from gettpy.plan import complex_paths
from gettpy.plan.complex_paths import real_plan, real_problem
from gettpy.plan.plan import make_plan
from gettpy.plan.schedule import make_schedule


def _emulate(subs, a, b, c, d, alpha=1.0, beta=0.0, op=(None,) * 4, compute=""):
    """Run execute_complex with the CPU executor per launch; returns the launches' (alpha, beta, reads C)."""
    launches = []

    def run(plan, a_, b_, c_, d_, al, be):
        assert not is_complex(plan.problem.compute) and plan.problem.c is not None
        assert type(al) is float and type(be) is float, "the kernel's alpha/beta are real"
        assert not np.iscomplexobj(a_) and not np.iscomplexobj(b_) and not np.iscomplexobj(d_)
        if c_ is not None:
            assert c_ is d_, "an accumulating launch reads the plane it writes"
        launches.append((al, be, c_ is not None))
        cpu.execute(plan, a_, b_, c_, d_, al, be)

    plan = make_plan(problem_of(subs, a, b, c, d, op, compute))
    execute_complex(plan, a, b, c, d, alpha, beta, run=run, xp=np)
    return launches


def _expect(subs, a, b, c=None, alpha=1.0, beta=0.0, op=(None,) * 4):
    """(reference in complex128, magnitude of the summed terms)."""
    f = [(lambda x: x) if o is None else o for o in op]
    fa, fb = f[0](np.asarray(a)), f[1](np.asarray(b))
    ref = alpha * reference(subs, fa, fb)
    scale = abs(alpha) * magnitude(subs, fa, fb)
    if c is not None and beta != 0:
        fc = f[2](np.asarray(c).astype(np.complex128))
        ref = ref + beta * fc
        scale += abs(beta) * float(np.max(np.abs(fc), initial=0.0))
    return ref, scale


def _poisoned(shape, dtype, order="C"):
    return np.full(shape, np.nan * (1 + 1j) if np.dtype(dtype).kind == "c" else np.nan, dtype=dtype, order=order)


def _shapes(subs, ext):
    lhs, md = subs.split("->")
    ma, mb = lhs.split(",")
    return tuple(ext[m] for m in ma), tuple(ext[m] for m in mb), tuple(ext[m] for m in md)


# ----------------------------------------------------------------------------------------------- (a) real problem
def test_real_problem_doubles_strides_and_gives_c_the_layout_of_d(rng):
    a = nonzero(rng, (4, 5, 6), np.complex64)
    b = np.asfortranarray(nonzero(rng, (6, 3), np.complex64))
    c = np.asfortranarray(nonzero(rng, (4, 5, 3), np.complex64))
    d = np.empty((4, 5, 3), np.complex64)
    p = problem_of("ijk,kl->ijl", a, b, c, d, op=(ops.conj, None, ops.conj, None))
    assert p.compute == "c64"
    r = real_problem(p)
    assert r.compute == "f32" and r.extents == p.extents
    for t, rt in ((p.a, r.a), (p.b, r.b), (p.d, r.d)):
        assert rt.modes == t.modes
        assert rt.strides == tuple(2 * s for s in t.strides)
        assert rt.dtype == "f32" and rt.align <= 4 and rt.op.is_identity
    # C is D's layout (the accumulating launch reads D), not the problem's C
    assert r.c.modes == r.d.modes and r.c.strides == r.d.strides and r.c.dtype == "f32"
    # a temporary's strides: D (and C) laid out as given, in the real compute type
    rt = real_problem(p, (15, 3, 1))
    assert rt.d.strides == rt.c.strides == (30, 6, 2) and rt.d.dtype == "f32"
    assert rt.a == r.a and rt.b == r.b


def test_real_problem_complex128_and_real_operands(rng):
    a = nonzero(rng, (3, 4))  # float64: no imaginary plane
    b = nonzero(rng, (4, 5), np.complex128)[:, ::-1]
    d = np.empty((3, 5), np.complex128)
    p = problem_of("ik,kj->ij", a, b, None, d)
    assert p.compute == "c128"
    r = real_problem(p)
    assert r.compute == "f64"
    assert r.a.dtype == "f64" and r.a.strides == p.a.strides and r.a.align == p.a.align
    assert r.b.dtype == "f64" and r.b.strides == (10, -2)
    assert r.d.strides == (10, 2) and r.c.strides == r.d.strides


def test_real_problem_refuses_a_real_problem(rng):
    a, b, d = nonzero(rng, (3, 4)), nonzero(rng, (4, 5)), np.empty((3, 5))
    with pytest.raises(KernelError, match="not complex"):
        real_problem(problem_of("ik,kj->ij", a, b, None, d))


def test_real_plan_is_cached(rng):
    a, b = nonzero(rng, (3, 4), np.complex64), nonzero(rng, (4, 5), np.complex64)
    p = problem_of("ik,kj->ij", a, b, None, np.empty((3, 5), np.complex64))
    assert real_plan(p) is real_plan(p)
    assert real_plan(p, (5, 1)) is real_plan(p, (5, 1))
    assert real_plan(p).problem == real_problem(p)
    assert complex_paths.real_plan.cache_info().maxsize == complex_paths.REAL_PLAN_CACHE_SIZE


# ----------------------------------------------------------------------------------------------- (b) the algebra
CASES = [
    # (id, subscripts, extents)
    ("tccg_abc-bda-dc", "bda,dc->abc", {"a": 7, "b": 6, "c": 5, "d": 9}),
    ("gemm", "ik,kj->ij", {"i": 13, "j": 11, "k": 17}),
    ("batch", "bij,bjk->bik", {"b": 3, "i": 5, "j": 7, "k": 4}),
    ("outer", "i,j->ij", {"i": 6, "j": 5}),
    ("dot", "k,k->", {"k": 23}),
    ("tccg_abcd-aebf-dfce", "aebf,dfce->abcd", {"a": 4, "b": 3, "c": 5, "d": 2, "e": 3, "f": 4}),
]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("layout", ["C", "F", "sliced", "transposed", "reversed"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_direct_launches_match_einsum(case, layout, dtype, rng):
    """alpha = 1, no C: four launches write D's planes in place; every layout of the inputs."""
    _, subs, ext = case
    sa, sb, sd = _shapes(subs, ext)

    def make(shape):
        if layout == "F":
            return np.asfortranarray(nonzero(rng, shape, dtype))
        if layout == "sliced":  # every other element of a bigger array, offset by one along the last axis
            big = nonzero(rng, tuple(2 * e for e in shape[:-1]) + (shape[-1] + 1,) if shape else (), dtype)
            return big[tuple(slice(None, None, 2) for _ in shape[:-1]) + ((slice(1, None),) if shape else ())]
        if layout == "transposed":
            return nonzero(rng, shape[::-1], dtype).T
        if layout == "reversed":
            return nonzero(rng, shape, dtype)[tuple(slice(None, None, -1) for _ in shape)]
        return nonzero(rng, shape, dtype)

    a, b = make(sa), make(sb)
    d = _poisoned(sd, dtype, "F" if layout == "F" else "C")
    launches = _emulate(subs, a, b, None, d)
    assert len(launches) == 4
    assert [x[2] for x in launches] == [False, True, False, True]  # each plane: write, then accumulate
    ref, scale = _expect(subs, a, b)
    assert_close(d, ref, dtype, scale)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("conj_a,conj_b", [(True, False), (False, True), (True, True)])
def test_conj_ops(conj_a, conj_b, dtype, rng):
    subs = "bda,dc->abc"
    a, b = nonzero(rng, (6, 9, 7), dtype), np.asfortranarray(nonzero(rng, (9, 5), dtype))
    op = (ops.conj if conj_a else None, ops.conj if conj_b else None, None, None)
    d = _poisoned((7, 6, 5), dtype)
    launches = _emulate(subs, a, b, None, d, op=op)
    assert len(launches) == 4
    ref, scale = _expect(subs, a, b, op=op)
    assert_close(d, ref, dtype, scale)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("alpha,beta,with_c,c_op", [
    pytest.param(-0.75, 0.0, False, None, id="real_alpha_direct"),
    pytest.param(0.5 - 1.25j, 0.0, False, None, id="complex_alpha"),
    pytest.param(1.0, 0.5 + 2j, True, None, id="complex_beta"),
    pytest.param(2j, -1.5, True, None, id="complex_alpha_real_beta"),
    pytest.param(1.5 + 0.5j, 0.25 - 1j, True, ops.conj, id="conj_c"),
    pytest.param(0.5, 0.0, True, None, id="c_given_beta_0"),
    pytest.param(1.0, 1.0, True, None, id="beta_1"),
    pytest.param(np.complex64(1 - 1j), np.complex128(0.5j), True, None, id="numpy_scalars"),
])
def test_alpha_beta_c(alpha, beta, with_c, c_op, dtype, rng):
    subs = "aebf,dfce->abcd"
    ext = {"a": 4, "b": 3, "c": 5, "d": 2, "e": 3, "f": 4}
    sa, sb, sd = _shapes(subs, ext)
    a, b = nonzero(rng, sa, dtype), np.asfortranarray(nonzero(rng, sb, dtype))
    c = None
    if with_c:  # C in another layout than D
        c = np.asfortranarray(nonzero(rng, sd, dtype))
        if beta == 0:
            c[...] = np.nan  # beta == 0: C is never read (numpy semantics)
    d = _poisoned(sd, dtype)
    op = (ops.conj, None, c_op, None)
    launches = _emulate(subs, a, b, c, d, alpha, beta, op)
    assert len(launches) == 4
    ref, scale = _expect(subs, a, b, c, complex(alpha), complex(beta), op)
    assert np.isfinite(d).all()
    assert_close(d, ref, dtype, scale)


def test_c_is_d(rng):
    """contract(..., c=d): the epilogue reads C and writes D, which are the same array."""
    a, b = nonzero(rng, (5, 4), np.complex128), nonzero(rng, (4, 6), np.complex128)
    d = nonzero(rng, (5, 6), np.complex128)
    c0 = d.copy()
    _emulate("ik,kj->ij", a, b, d, d, 1 - 2j, 0.5 + 0.5j)
    ref, scale = _expect("ik,kj->ij", a, b, c0, 1 - 2j, 0.5 + 0.5j)
    assert_close(d, ref, np.complex128, scale)


@pytest.mark.parametrize("alpha,beta", [(1.0, 0.0), (1j, 0.0), (2.0, 1 + 1j)])
def test_strided_output_leaves_the_gaps_alone(alpha, beta, rng):
    """D a view with gaps (every other row, every third column): only D's elements are written."""
    buf = np.full((10, 18), 7 + 7j, np.complex64)
    d = buf[::2, 1::3]
    a, b = nonzero(rng, (5, 8), np.complex64), nonzero(rng, (8, 6), np.complex64)
    c = np.asfortranarray(nonzero(rng, (5, 6), np.complex64))
    _emulate("ik,kj->ij", a, b, c, d, alpha, beta)
    ref, scale = _expect("ik,kj->ij", a, b, c, alpha, beta)
    assert_close(d, ref, np.complex64, scale)
    mask = np.ones(buf.shape, bool)
    mask[::2, 1::3] = False
    assert (buf[mask] == 7 + 7j).all()


@pytest.mark.parametrize("alpha", [1.0, 1 + 1j])
@pytest.mark.parametrize("b_dtype,launches_expected", [(np.complex128, 2), (np.float64, 1)],
                         ids=["real_A_complex_B", "real_A_real_B"])
def test_real_operands_into_complex_output(b_dtype, launches_expected, alpha, rng):
    """float64 A into complex128 D (compute c128). With complex B: A has no imaginary plane, two launches;
    with float64 B too: one launch, and the imaginary plane is zeroed."""
    a = nonzero(rng, (5, 7))
    b = nonzero(rng, (7, 4), b_dtype)
    d = _poisoned((5, 4), np.complex128)
    launches = _emulate("ik,kj->ij", a, b, None, d, alpha)
    assert len(launches) == launches_expected
    ref, scale = _expect("ik,kj->ij", a, b, alpha=alpha)
    assert_close(d, ref, np.complex128, scale)


@pytest.mark.parametrize("alpha", [1.0, 1 + 1j])
def test_complex_compute_real_output(alpha, rng):
    """complex inputs, float64 D, compute c128 forced: D is the real part (as the CPU executor's cast)."""
    a, b = nonzero(rng, (5, 7), np.complex128), nonzero(rng, (7, 4), np.complex128)
    d = np.full((5, 4), np.nan)
    launches = _emulate("ik,kj->ij", a, b, None, d, alpha, compute="c128")
    assert len(launches) == 2 if alpha == 1 else 4
    ref, scale = _expect("ik,kj->ij", a, b, alpha=alpha)
    assert_close(d, ref.real, np.float64, scale)


def test_mixed_precision_c64_inputs_c128_output(rng):
    a, b = nonzero(rng, (6, 5), np.complex64), nonzero(rng, (5, 4), np.complex64)
    d = _poisoned((6, 4), np.complex128)
    _emulate("ik,kj->ij", a, b, None, d)
    ref, scale = _expect("ik,kj->ij", a, b)
    assert_close(d, ref, np.complex64, scale)


def test_zero_extent_output_launches_nothing(rng):
    a, b = nonzero(rng, (0, 4), np.complex64), nonzero(rng, (4, 5), np.complex64)
    assert _emulate("ik,kj->ij", a, b, None, np.empty((0, 5), np.complex64)) == []


def test_zero_k_gives_beta_c(rng):
    a, b = nonzero(rng, (3, 0), np.complex64), nonzero(rng, (0, 4), np.complex64)
    c = nonzero(rng, (3, 4), np.complex64)
    d = _poisoned((3, 4), np.complex64)
    _emulate("ik,kj->ij", a, b, c, d, 1 + 1j, 2 - 1j)
    assert_close(d, (2 - 1j) * c.astype(np.complex128), np.complex64)


# ----------------------------------------------------------------------------------------------- through a schedule
@pytest.mark.parametrize("alpha,beta", [(1.0, 0.0), (0.5 + 1j, -1j)])
def test_staged_schedule_runs_complex_core(force_staging, alpha, beta, rng):
    """A staged schedule (packed gathered inputs, split-K workspace of the complex type) around the complex core.

    D is not aligned to its element (a complex64 view 4 bytes into a float32 buffer): the plan runs as real launches,
    whose schedule packs a gathered input (the one-launch kernel's, with D aligned, reads it in place)."""
    subs = "ab,cad->dcb"
    a = nonzero(rng, (32, 18), np.complex64)[::2, ::3]  # no stride-1 run: packed
    b = nonzero(rng, (5, 16, 7), np.complex64)
    buf = np.empty(2 * 7 * 5 * 6 + 2, np.float32)
    d = buf[1:-1].view(np.complex64).reshape((7, 5, 6))
    d[...] = _poisoned((7, 5, 6), np.complex64)
    c = np.asfortranarray(nonzero(rng, (7, 5, 6), np.complex64))
    p = problem_of(subs, a, b, c, d)
    s = make_schedule(p)
    assert s.staged and s.pack_a is not None and s.split_mode is not None

    def core(plan, a_, b_, c_, d_, al, be):
        execute_complex(plan, a_, b_, c_, d_, al, be, run=cpu.execute, xp=np)

    staged.run(s, np, core, a, b, c, d, alpha, beta)
    ref, scale = _expect(subs, a, b, c, alpha, beta)
    assert_close(d, ref, np.complex64, scale)


# ----------------------------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("where,op,beta", [
    (0, ops.relu, 0.0), (1, ops.exp, 0.0), (0, ops.neg, 0.0), (2, ops.relu, 1.0), (3, ops.conj, 0.0),
    (3, ops.scale(2.0), 1.0),
])
def test_unsupported_ops_raise(where, op, beta, rng):
    a, b = nonzero(rng, (3, 4), np.complex64), nonzero(rng, (4, 5), np.complex64)
    c, d = nonzero(rng, (3, 5), np.complex64), np.zeros((3, 5), np.complex64)
    o = [None] * 4
    o[where] = op
    with pytest.raises(KernelError) as e:
        _emulate("ik,kj->ij", a, b, c, d, 1.0, beta, tuple(o))
    msg = str(e.value)
    assert f"operand {'ABCD'[where]}" in msg and repr(op.name) in msg
    assert "CPU" in msg
    assert (d == 0).all()  # refused before any launch


def test_unsupported_op_on_c_ignored_when_c_is_not_read(rng):
    a, b = nonzero(rng, (3, 4), np.complex64), nonzero(rng, (4, 5), np.complex64)
    c, d = nonzero(rng, (3, 5), np.complex64), _poisoned((3, 5), np.complex64)
    _emulate("ik,kj->ij", a, b, c, d, 1.0, 0.0, (None, None, ops.relu, None))
    ref, scale = _expect("ik,kj->ij", a, b)
    assert_close(d, ref, np.complex64, scale)


def test_einsum_operand_names_in_the_error(rng):
    """einsum's problems name operands "operand 0" etc.: the error names the role and that name."""
    a, b = nonzero(rng, (3, 4), np.complex64), nonzero(rng, (4, 5), np.complex64)
    d = np.zeros((3, 5), np.complex64)
    p = problem_of("ik,kj->ij", a, b, None, d)
    from dataclasses import replace

    p = replace(p, b=replace(p.b, name="operand 1", op=ops.sigmoid))
    with pytest.raises(KernelError, match=r"operand B \(operand 1\): op 'sigmoid'"):
        execute_complex(make_plan(p), a, b, None, d, run=cpu.execute, xp=np)


# ----------------------------------------------------------------------------------------------- gpu.execute's dispatch
def test_gpu_execute_dispatches_complex_plans(monkeypatch, rng):
    seen = []
    monkeypatch.setattr(gpu_complex, "execute_complex", lambda *args, **kw: seen.append((args, kw)))
    a, b = nonzero(rng, (3, 4), np.complex64), nonzero(rng, (4, 5), np.complex64)
    d = np.zeros((3, 5), np.complex64)
    plan = make_plan(problem_of("ik,kj->ij", a, b, None, d))
    gpu.execute(plan, a, b, None, d, 1 + 2j, 0.5j, stream="s")
    assert len(seen) == 1
    args, kw = seen[0]
    assert args[0] is plan and args[1] is a and args[2] is b and args[4] is d
    assert args[5:] == (1 + 2j, 0.5j) and kw == {"stream": "s"}


def test_gpu_execute_refuses_complex_scalars_on_real_plans(rng):
    a, b = nonzero(rng, (3, 4), np.float32), nonzero(rng, (4, 5), np.float32)
    d = np.zeros((3, 5), np.float32)
    plan = make_plan(problem_of("ik,kj->ij", a, b, None, d))
    with pytest.raises(KernelError, match="complex alpha/beta on a real contraction"):
        gpu.execute(plan, a, b, None, d, 1j, 0.0)


def test_kernel_spec_still_refuses_complex_plans(rng):
    from gettpy.plan.tiles import kernel_spec

    a, b = nonzero(rng, (3, 4), np.complex64), nonzero(rng, (4, 5), np.complex64)
    plan = make_plan(problem_of("ik,kj->ij", a, b, None, np.zeros((3, 5), np.complex64)))
    with pytest.raises(KernelError, match="complex_paths.real_plan"):
        kernel_spec(plan, False)
    kernel_spec(real_plan(plan.problem), True)  # the real plan has a kernel


def test_cpu_einsum_unaffected(rng):
    """numpy arrays still run complex contractions (with any op) on the CPU executor."""
    a, b = nonzero(rng, (3, 4), np.complex64), nonzero(rng, (4, 5), np.complex64)
    got = gettpy.einsum("ik,kj->ij", a, b, ops=[ops.square, None])
    assert_close(got, reference("ik,kj->ij", a * a, b), np.complex64)


