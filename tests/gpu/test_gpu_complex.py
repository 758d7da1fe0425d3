"""GPU tests of complex64 / complex128 contractions (four real GETT launches, gettpy.backends.gpu_complex).

Every result is checked against np.einsum in complex128 on the same values, with a tolerance relative to
the magnitude of the summed terms (`harness.assert_close` with `magnitude`). Outputs are poisoned with NaN
where the test allocates them: an element no launch writes fails the check. The decomposition itself is
checked on the CPU in tests/test_complex_gpu_plan.py; these run it on the kernel (skipped without a device).
"""
from __future__ import annotations

import numpy as np
import pytest
from harness import assert_close, magnitude, nonzero, reference

import gettpy
from gettpy import ops
from gettpy.errors import KernelError, OpError

pytestmark = pytest.mark.gpu

CDTYPES = [np.complex64, np.complex128]


# ----------------------------------------------------------------------------------------------- helpers
def _host(x) -> np.ndarray:
    import cupy as cp

    return cp.asnumpy(x)


def _operand(rng, shape, dtype, layout="C"):
    """(cupy array, numpy array of the same values and layout) of random non-zero complex values."""
    import cupy as cp

    shape = tuple(shape)
    if layout == "F":
        h = np.asfortranarray(nonzero(rng, shape, dtype))
        return cp.asfortranarray(cp.asarray(h)), h
    if layout == "transposed":
        h = nonzero(rng, shape[::-1], dtype)
        return cp.asarray(h).T, h.T
    if layout == "sliced":  # every other element along all but the last axis, offset by one along the last
        if not shape:
            h = nonzero(rng, shape, dtype)
            return cp.asarray(h), h
        big = nonzero(rng, tuple(2 * e for e in shape[:-1]) + (shape[-1] + 1,), dtype)
        sl = tuple(slice(None, None, 2) for _ in shape[:-1]) + (slice(1, None),)
        return cp.asarray(big)[sl], big[sl]
    if layout == "reversed":
        h = nonzero(rng, shape, dtype)
        sl = tuple(slice(None, None, -1) for _ in shape)
        return cp.asarray(h)[sl], h[sl]
    h = nonzero(rng, shape, dtype)
    return cp.asarray(h), h


def _poisoned(shape, dtype, order="C"):
    import cupy as cp

    return cp.full(shape, complex(np.nan, np.nan), dtype=dtype, order=order)


def _shapes(subs, ext):
    lhs, out = subs.split("->")
    return [tuple(ext[m] for m in t) for t in lhs.split(",")], tuple(ext[m] for m in out)


def _sync():
    import cupy as cp

    cp.cuda.Device().synchronize()


# ----------------------------------------------------------------------------------------------- einsum
EINSUM_CASES = [
    # (id, subscripts, extents)
    ("tccg01_abc-bda-dc", "bda,dc->abc", {"a": 72, "b": 64, "c": 24, "d": 56}),
    ("tccg20_abcd-aebf-dfce", "aebf,dfce->abcd", {"a": 16, "b": 12, "c": 16, "d": 10, "e": 16, "f": 12}),
    ("tccg06_abcde-efbad-cf", "efbad,cf->abcde", {"a": 12, "b": 8, "c": 9, "d": 8, "e": 12, "f": 8}),
    ("batch", "bij,bjk->bik", {"b": 4, "i": 65, "j": 33, "k": 47}),
    ("gemm_partial_tiles", "ik,kj->ij", {"i": 129, "j": 131, "k": 67}),
]
LAYOUTS = ["C", "F", "transposed", "sliced", "reversed"]


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum(case, layout, dtype, rng):
    _, subs, ext = case
    (sa, sb), _ = _shapes(subs, ext)
    a, ha = _operand(rng, sa, dtype, layout)
    b, hb = _operand(rng, sb, dtype, "F" if layout == "C" else layout)
    got = gettpy.einsum(subs, a, b)
    assert got.dtype == np.dtype(dtype)
    assert_close(_host(got), reference(subs, ha, hb), dtype, magnitude(subs, ha, hb))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("subs,shapes", [
    pytest.param("ijk->ik", [(33, 17, 9)], id="reduce_one_operand"),
    pytest.param("ij,jk,kl->il", [(20, 30), (30, 25), (25, 12)], id="chain3"),
    pytest.param("k,k->", [(1000,), (1000,)], id="dot"),
    pytest.param("i,j->ij", [(70,), (45,)], id="outer"),
    pytest.param("iij->j", [(9, 9, 14)], id="diagonal"),
])
def test_einsum_more_shapes(subs, shapes, dtype, rng):
    xs = [_operand(rng, s, dtype) for s in shapes]
    got = gettpy.einsum(subs, *[x for x, _ in xs])
    hs = [h for _, h in xs]
    assert_close(_host(got), reference(subs, *hs), dtype, magnitude(subs, *hs))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("op_a,op_b", [("conj", None), (None, "conj"), (ops.conj, ops.conj)])
def test_einsum_conj_ops(op_a, op_b, dtype, rng):
    subs = "bda,dc->abc"
    a, ha = _operand(rng, (40, 33, 21), dtype)
    b, hb = _operand(rng, (33, 18), dtype, "F")
    got = gettpy.einsum(subs, a, b, ops=[op_a, op_b])
    fa = np.conj(ha) if op_a is not None else ha
    fb = np.conj(hb) if op_b is not None else hb
    assert_close(_host(got), reference(subs, fa, fb), dtype, magnitude(subs, ha, hb))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_einsum_out(dtype, rng):
    """out= C-ordered, F-ordered and a strided view with gaps (the gaps untouched)."""
    import cupy as cp

    subs = "ik,kj->ij"
    a, ha = _operand(rng, (50, 37), dtype)
    b, hb = _operand(rng, (37, 44), dtype, "F")
    ref, mag = reference(subs, ha, hb), magnitude(subs, ha, hb)
    for order in ("C", "F"):
        out = _poisoned((50, 44), dtype, order)
        assert gettpy.einsum(subs, a, b, out=out) is out
        assert_close(_host(out), ref, dtype, mag)
    buf = cp.full((100, 88), 7 + 7j, dtype=dtype)
    out = buf[::2, 1::2]
    assert gettpy.einsum(subs, a, b, out=out) is out
    assert_close(_host(out), ref, dtype, mag)
    mask = np.ones(buf.shape, bool)
    mask[::2, 1::2] = False
    assert (_host(buf)[mask] == 7 + 7j).all()


def test_einsum_dtype_and_mixed_precision(rng):
    subs = "bij,bjk->bik"
    a, ha = _operand(rng, (3, 40, 24), np.complex64)
    b, hb = _operand(rng, (3, 24, 30), np.complex64, "F")
    ref, mag = reference(subs, ha, hb), magnitude(subs, ha, hb)
    # dtype=complex128: the computation runs in complex128 (numpy's semantics: the inputs are cast)
    got = gettpy.einsum(subs, a, b, dtype=np.complex128)
    assert got.dtype == np.complex128
    assert_close(_host(got), ref, np.complex128, mag)
    # complex64 inputs into a complex128 out: float32 planes, float64 accumulation
    out = _poisoned((3, 40, 30), np.complex128)
    gettpy.einsum(subs, a, b, out=out)
    assert_close(_host(out), ref, np.complex64, mag)
    # float64 inputs into a complex128 out: one real launch, the imaginary plane zeroed
    ra, rha = _operand(rng, (3, 40, 24), np.float64)
    rb, rhb = _operand(rng, (3, 24, 30), np.float64)
    out = _poisoned((3, 40, 30), np.complex128)
    gettpy.einsum(subs, ra, rb, out=out)
    assert_close(_host(out), reference(subs, rha, rhb).astype(np.complex128), np.complex128,
                 magnitude(subs, rha, rhb))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_einsum_split_k_and_packed_inputs(dtype, rng):
    """Shapes the schedule stages: split-K (small output, long K) and a packed gathered input."""
    subs = "ik,kj->ij"
    a, ha = _operand(rng, (24, 8192), dtype)
    b, hb = _operand(rng, (8192, 20), dtype, "F")
    assert_close(_host(gettpy.einsum(subs, a, b)), reference(subs, ha, hb), dtype, magnitude(subs, ha, hb))
    a, ha = _operand(rng, (512, 256), dtype)
    a, ha = a[::2, ::2], ha[::2, ::2]  # no stride-1 run along i or k
    b, hb = _operand(rng, (128, 300), dtype)
    assert_close(_host(gettpy.einsum(subs, a, b)), reference(subs, ha, hb), dtype, magnitude(subs, ha, hb))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_einsum_empty_and_zero_k(dtype, rng):
    import cupy as cp

    a, b = cp.zeros((0, 5), dtype), cp.zeros((5, 3), dtype)
    assert gettpy.einsum("ik,kj->ij", a, b).shape == (0, 3)
    a, b = cp.zeros((4, 0), dtype), cp.zeros((0, 3), dtype)
    got = gettpy.einsum("ik,kj->ij", a, b)
    assert (_host(got) == 0).all() and got.shape == (4, 3)


@pytest.mark.parametrize("op_a,op_out,error,what", [
    (ops.relu, None, OpError, "ops\\[0\\]: op 'relu' is not defined on complex values"),  # (the type check, first)
    ("exp", None, OpError, "ops\\[0\\]: op 'exp' is not defined on complex values"),
    (ops.square, None, KernelError, "operand A"),  # (defined on complex values; the kernel takes none but conj)
    (None, "neg", KernelError, "operand D"),
])
def test_einsum_unsupported_ops_raise(op_a, op_out, error, what, rng):
    a, _ = _operand(rng, (8, 6), np.complex64)
    b, _ = _operand(rng, (6, 5), np.complex64)
    with pytest.raises(error, match=what) as e:
        gettpy.einsum("ik,kj->ij", a, b, ops=[op_a, None], op_out=op_out)
    if error is KernelError:
        assert "identity and conj" in str(e.value) or "no op on the output" in str(e.value)


# ----------------------------------------------------------------------------------------------- Contraction / contract
ALPHA_BETA = [
    pytest.param(1.0, 0.0, id="plain"),
    pytest.param(-0.75, 0.0, id="real_alpha"),
    pytest.param(0.5 - 1.25j, 0.0, id="complex_alpha"),
    pytest.param(1.0, 0.5 + 2j, id="complex_beta"),
    pytest.param(2j, -1.5, id="complex_alpha_real_beta"),
    pytest.param(1.5 + 0.5j, 1.0, id="beta_1"),
    pytest.param(np.complex64(1 - 1j), np.complex128(0.25j), id="numpy_scalars"),
]


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("alpha,beta", ALPHA_BETA)
def test_contraction_alpha_beta_c(alpha, beta, dtype, rng):
    subs = "aebf,dfce->abcd"
    ext = {"a": 12, "b": 10, "c": 14, "d": 6, "e": 9, "f": 11}
    (sa, sb), sd = _shapes(subs, ext)
    a, ha = _operand(rng, sa, dtype)
    b, hb = _operand(rng, sb, dtype, "F")
    c, hc = _operand(rng, sd, dtype, "F")  # C in another layout than D
    out = _poisoned(sd, dtype)
    con = gettpy.Contraction(subs, a, b, c=c, out=out)
    got = con.execute(alpha=alpha, beta=beta)
    assert got is out
    alpha, beta = complex(alpha), complex(beta)
    ref = alpha * reference(subs, ha, hb) + beta * hc
    mag = abs(alpha) * magnitude(subs, ha, hb) + abs(beta) * float(np.abs(hc).max())
    assert_close(_host(out), ref, dtype, mag)
    # the same plan again, with new operands of the same layouts
    a2, ha2 = _operand(rng, sa, dtype)
    con.reset_operands(a=a2)
    con.execute(alpha=alpha, beta=beta)
    assert_close(_host(out), alpha * reference(subs, ha2, hb) + beta * hc, dtype,
                 abs(alpha) * magnitude(subs, ha2, hb) + abs(beta) * float(np.abs(hc).max()))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_contraction_c_given_beta_0_is_not_read(dtype, rng):
    subs = "ik,kj->ij"
    a, ha = _operand(rng, (33, 20), dtype)
    b, hb = _operand(rng, (20, 40), dtype)
    c = _poisoned((33, 40), dtype)
    for alpha in (1.0, 2 - 1j):
        got = gettpy.Contraction(subs, a, b, c=c).execute(alpha=alpha, beta=0.0)
        assert_close(_host(got), alpha * reference(subs, ha, hb), dtype, abs(alpha) * magnitude(subs, ha, hb))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("conj_a,conj_b", [(True, False), (False, True), (True, True)])
def test_contraction_conj_ops(conj_a, conj_b, dtype, rng):
    subs = "abk,kca->bc"
    a, ha = _operand(rng, (7, 30, 25), dtype, "F")
    b, hb = _operand(rng, (25, 19, 7), dtype)
    con = gettpy.Contraction(subs, a, b, ops=("conj" if conj_a else None, ops.conj if conj_b else None))
    got = con.execute(alpha=0.5 + 0.5j)
    fa = np.conj(ha) if conj_a else ha
    fb = np.conj(hb) if conj_b else hb
    assert_close(_host(got), (0.5 + 0.5j) * reference(subs, fa, fb), dtype, magnitude(subs, ha, hb))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_contract_conj_c_and_c_is_d(dtype, rng):
    """The low-level API: conj on C (descriptor op), and C given as D itself (read, then overwritten)."""
    subs_a, subs_b, subs_d = "ik", "kj", "ij"
    a, ha = _operand(rng, (45, 31), dtype)
    b, hb = _operand(rng, (31, 52), dtype, "F")
    c, hc = _operand(rng, (45, 52), dtype, "F")
    d = _poisoned((45, 52), dtype)
    da, db = gettpy.TensorDescriptor.of(a), gettpy.TensorDescriptor.of(b)
    p = gettpy.plan(da, subs_a, db, subs_b, gettpy.TensorDescriptor.of(c, op="conj"), subs_d,
                    gettpy.TensorDescriptor.of(d), subs_d)
    gettpy.contract(p, 1 - 1j, a, b, 0.5 + 1j, c, d)
    ref = (1 - 1j) * reference("ik,kj->ij", ha, hb) + (0.5 + 1j) * np.conj(hc)
    mag = np.sqrt(2) * magnitude("ik,kj->ij", ha, hb) + abs(0.5 + 1j) * float(np.abs(hc).max())
    assert_close(_host(d), ref, dtype, mag)
    # C = D
    d, hd = _operand(rng, (45, 52), dtype)
    hd = hd.copy()
    dd = gettpy.TensorDescriptor.of(d)
    p = gettpy.plan(da, subs_a, db, subs_b, dd, subs_d)
    gettpy.contract(p, 2.0, a, b, -1j, d, d)
    ref = 2.0 * reference("ik,kj->ij", ha, hb) - 1j * hd
    assert_close(_host(d), ref, dtype, 2 * magnitude("ik,kj->ij", ha, hb) + float(np.abs(hd).max()))


def test_contraction_real_and_complex_operands(rng):
    """float64 A with complex128 B (compute c128): A has no imaginary plane."""
    import cupy as cp

    subs = "ik,kj->ij"
    a, ha = _operand(rng, (37, 29), np.float64)
    b, hb = _operand(rng, (29, 41), np.complex128)
    out = cp.empty((37, 41), np.complex128)
    got = gettpy.Contraction(subs, a, b, out=out).execute(alpha=1 + 1j)
    assert_close(_host(got), (1 + 1j) * reference(subs, ha, hb), np.complex128, 2 * magnitude(subs, ha, hb))


def test_contraction_on_a_stream(rng):
    """The launches and the temporary's epilogue run on the given stream."""
    import cupy as cp

    subs = "ik,kj->ij"
    a, ha = _operand(rng, (200, 150), np.complex64)
    b, hb = _operand(rng, (150, 180), np.complex64)
    c, hc = _operand(rng, (200, 180), np.complex64)
    _sync()
    s = cp.cuda.Stream(non_blocking=True)
    con = gettpy.Contraction(subs, a, b, c=c)
    got = con.execute(alpha=1j, beta=0.5, stream=s)
    s.synchronize()
    assert_close(_host(got), 1j * reference(subs, ha, hb) + 0.5 * hc, np.complex64,
                 magnitude(subs, ha, hb) + 0.5 * float(np.abs(hc).max()))


def test_contraction_unsupported_op_on_c_raises(rng):
    a, _ = _operand(rng, (8, 6), np.complex64)
    b, _ = _operand(rng, (6, 5), np.complex64)
    c, _ = _operand(rng, (8, 5), np.complex64)
    d = _poisoned((8, 5), np.complex64)
    da, db = gettpy.TensorDescriptor.of(a), gettpy.TensorDescriptor.of(b)
    # an op undefined on complex values is refused by the plan (the type check einsum makes too)
    with pytest.raises(OpError, match="operand C .*op 'relu' is not defined on complex values"):
        gettpy.plan(da, "ik", db, "kj", gettpy.TensorDescriptor.of(c, op="relu"), "ij", gettpy.TensorDescriptor.of(d),
                    "ij")
    # one defined there that the complex kernel does not apply, by the kernel
    p = gettpy.plan(da, "ik", db, "kj", gettpy.TensorDescriptor.of(c, op="square"), "ij",
                    gettpy.TensorDescriptor.of(d), "ij")
    with pytest.raises(KernelError, match="operand C: op 'square'"):
        gettpy.contract(p, 1.0, a, b, 1.0, c, d)
