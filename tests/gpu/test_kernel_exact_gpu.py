"""GPU tests of the integer kernel (gettpy.backends.gpu_exact): int8 ... int64, uint8 ... uint64 and bool contractions
in one launch, against numpy's integer arithmetic (the exact sums modulo 2^64, cast into D's type: numpy's
wrap-around): odd extents and 16-byte vectors, both memory orders, a batch mode, contractions over two modes, values
that overflow D's type, negative alpha and beta with C read, mixed operand types, bool as the or of ands. Outputs
start as a sentinel that no result has, so an element never written fails. Skipped without a CUDA device."""
from __future__ import annotations

import numpy as np
import pytest

from gettpy.backends.gpu_exact import scalar
from gettpy.backends.gpu_simt import launch
from gettpy.kernels.spec import ITEMSIZE
from gettpy.layouts.descriptor import build_operand_layout
from gettpy.plan.simt import exact_kernel_spec

pytestmark = pytest.mark.gpu

NP = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8, "u16": np.uint16,
      "u32": np.uint32, "u64": np.uint64, "b1": np.bool_}


def _values(rng, shape, dt, big=False):
    """Random values of type `dt` (the whole range with big=True: sums overflow every type)."""
    if dt == "b1":
        return rng.random(shape) < 0.05
    info = np.iinfo(NP[dt])
    lo, hi = (info.min, info.max) if big else (max(info.min, -100), min(info.max, 100))
    return rng.integers(lo, hi, size=shape, dtype=NP[dt], endpoint=True)


def _wrapped(x):
    """x's values as uint64 bit patterns (a signed value sign-extended): numpy arithmetic on them wraps mod 2^64."""
    return x.astype(np.int64).astype(np.uint64) if x.dtype.kind in "ib" else x.astype(np.uint64)


def _reference(sub, a, b, d_dt, alpha=1, beta=0, c=None):
    with np.errstate(over="ignore"):
        s = np.einsum(sub, _wrapped(a), _wrapped(b))
        s = s * np.uint64(alpha % 2**64)
        if c is not None:
            s = s + np.uint64(beta % 2**64) * _wrapped(c)
    return s != 0 if d_dt == "b1" else s.astype(NP[d_dt])


def _run(rng, sub, ext, dts, order="C", big=False, alpha=1, beta=0, with_c=False):
    """Contract einsum `sub` (the kernel's A = the first operand) on the GPU and check it against numpy."""
    import cupy as cp

    (ma, mb), md = sub.split("->")[0].split(","), sub.split("->")[1]
    groups = {"m": tuple(x for x in md if x in ma and x not in mb),
              "n": tuple(x for x in md if x in mb and x not in ma),
              "k": tuple(x for x in ma if x in mb and x not in md), "b": tuple(x for x in md if x in ma and x in mb)}
    ha, hb = (_values(rng, tuple(ext[m] for m in t), dt, big) for t, dt in ((ma, dts[0]), (mb, dts[1])))
    hc = _values(rng, tuple(ext[m] for m in md), dts[2], big) if with_c else None
    def dev(h):
        return cp.asfortranarray(cp.asarray(h)) if order == "F" else cp.ascontiguousarray(cp.asarray(h))

    a, b = dev(ha), dev(hb)
    sentinel = 1 if dts[2] == "b1" else 77  # (unwritten elements: mostly not the reference's value)
    d = cp.full(tuple(ext[m] for m in md), sentinel, dtype=NP[dts[2]], order="F" if order == "F" else "C")
    c = dev(hc) if with_c else None

    def lay(name, x, modes, dims):
        st = {m: s // x.itemsize for m, s in zip(modes, x.strides, strict=True)}
        return build_operand_layout(name, {g: groups[g] for g in dims}, ext, st, ITEMSIZE[{
            "A": dts[0], "B": dts[1], "C": dts[2], "D": dts[2]}[name]])

    la, lb, ld = lay("A", a, ma, "mkb"), lay("B", b, mb, "nkb"), lay("D", d, md, "mnb")
    lc = lay("C", c, md, "mnb") if with_c else None
    size = {g: int(np.prod([ext[m] for m in ms])) for g, ms in groups.items()}
    spec = exact_kernel_spec(la, lb, lc, ld, (dts[0], dts[1], dts[2] if with_c else None, dts[2]),
                             (size["m"], size["n"], size["k"], size["b"]))
    al, be = scalar(alpha, spec.compute, dts[2], "alpha"), scalar(beta, spec.compute, dts[2], "beta")
    launch(spec, a.data.ptr, b.data.ptr, c.data.ptr if with_c else 0, d.data.ptr, al, be, type(al))
    got = cp.asnumpy(d)
    ref = _reference(sub, ha, hb, dts[2], alpha, beta, hc)
    assert got.dtype == ref.dtype
    bad = np.argwhere(got != ref)
    assert bad.size == 0, (spec.compute, spec.tile, bad[:5], got[tuple(bad[0])], ref[tuple(bad[0])])
    return spec


TYPES = [("i8", "i8", "i8"), ("u8", "u8", "u8"), ("i16", "i16", "i16"), ("u16", "u16", "u16"), ("i32", "i32", "i32"),
         ("u32", "u32", "u32"), ("i64", "i64", "i64"), ("u64", "u64", "u64"), ("i8", "i32", "i32"),
         ("u8", "i16", "i64"), ("b1", "b1", "b1")]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dts", TYPES, ids=["-".join(t) for t in TYPES])
def test_gemm_types(dts, order, rng):
    """Odd extents (element-wise reads), values overflowing D's type where it is narrower than the sums."""
    spec = _run(rng, "ik,kj->ij", {"i": 131, "j": 97, "k": 67}, dts, order, big=dts[2] != "b1")
    assert spec.compute == ("u64" if "64" in dts[2] else "u32")


@pytest.mark.parametrize("dts", [("i8", "i8", "i32"), ("u8", "u8", "u8"), ("i16", "i16", "i64"), ("b1", "b1", "b1")],
                         ids=["i8-i32", "u8", "i16-i64", "b1"])
def test_vectors(dts, rng):
    """Extents that are multiples of 16: 16-byte vectors of 1- and 2-byte values along the contiguous dimensions."""
    spec = _run(rng, "ik,kj->ij", {"i": 256, "j": 192, "k": 320}, dts, "C", big=True)
    assert max(spec.a.vec, spec.b.vec) * ITEMSIZE[dts[0]] == 16


@pytest.mark.parametrize("order", ["C", "F"])
def test_tensor_contraction_and_batch(order, rng):
    _run(rng, "aebf,dfce->abcd", {"a": 9, "b": 7, "c": 11, "d": 5, "e": 13, "f": 3}, ("i32",) * 3, order, big=True)
    _run(rng, "zik,zkj->zij", {"z": 5, "i": 33, "j": 19, "k": 41}, ("i64",) * 3, order, big=True)
    _run(rng, "zik,zkj->zij", {"z": 3, "i": 65, "j": 17, "k": 300}, ("b1",) * 3, order)


@pytest.mark.parametrize("dts", [("i32",) * 3, ("i64",) * 3, ("u8",) * 3, ("b1",) * 3], ids=["i32", "i64", "u8", "b1"])
def test_alpha_beta_c(dts, rng):
    """D = alpha A B + beta C, negative alpha / beta taken modulo the compute type (bool: 1 and 1, an or)."""
    al, be = (1, 1) if dts[2] == "b1" else (-3, -7)
    _run(rng, "ik,kj->ij", {"i": 77, "j": 45, "k": 29}, dts, "F", big=dts[2] != "b1", alpha=al, beta=be,
         with_c=True)


EINSUMS = [  # (id, subscripts, shapes, dtypes)
    ("gemm_i32", "ik,kj->ij", [(131, 67), (67, 97)], (np.int32, np.int32)),
    ("gemm_i8", "ik,kj->ij", [(64, 48), (48, 80)], (np.int8, np.int8)),
    ("mixed_u8_i16", "ik,kj->ij", [(33, 21), (21, 17)], (np.uint8, np.int16)),
    ("contract_i64", "aebf,dfce->abcd", [(9, 13, 7, 3), (5, 3, 11, 13)], (np.int64, np.int64)),
    ("batch_u16", "bij,bjk->bik", [(5, 33, 19), (5, 19, 41)], (np.uint16, np.uint16)),
    ("bool", "ik,kj->ij", [(70, 300), (300, 45)], (np.bool_, np.bool_)),
    ("chain3_i32", "ij,jk,kl->il", [(20, 30), (30, 25), (25, 12)], (np.int32, np.int32, np.int32)),
]


@pytest.mark.parametrize("case", EINSUMS, ids=[c[0] for c in EINSUMS])
def test_einsum_on_cupy(case, rng, monkeypatch):
    """gettpy.einsum on CuPy integer and bool arrays: numpy's result type and values (wrap-around included), the
    integer kernel launched (gpu_exact.execute_exact called)."""
    import cupy as cp

    import gettpy
    from gettpy.backends import gpu_exact

    calls = []
    real = gpu_exact.execute_exact
    monkeypatch.setattr(gpu_exact, "execute_exact", lambda *a, **k: (calls.append(1), real(*a, **k))[1])
    _, subs, shapes, dts = case
    hs = [_values(rng, s, _short(dt), big=dt is not np.bool_) for s, dt in zip(shapes, dts, strict=True)]
    got = gettpy.einsum(subs, *[cp.asarray(h) for h in hs])
    with np.errstate(over="ignore"):
        ref = np.einsum(subs, *hs)
    assert got.dtype == ref.dtype
    assert (cp.asnumpy(got) == ref).all()
    assert calls


def _short(dt) -> str:
    return {np.int8: "i8", np.int16: "i16", np.int32: "i32", np.int64: "i64", np.uint8: "u8", np.uint16: "u16",
            np.uint32: "u32", np.uint64: "u64", np.bool_: "b1"}[dt]
