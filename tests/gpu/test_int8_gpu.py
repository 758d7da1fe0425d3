"""GPU tests of the int8 tensor-core path (mma.sync m16n8k32 in the GETT template, gettpy.backends.gpu_exact): int8,
uint8 and mixed GEMMs and contractions with odd extents, both memory orders, alpha / beta / C, K long enough that the
32-bit sums wrap, against numpy's einsum computed in int64 (modulo 2^64 with alpha and beta) then cast to D's type
(numpy's wrap-around). Every kernel test checks that the int8 tile ran; outputs start as a sentinel. Skipped without
a CUDA device."""
from __future__ import annotations

import numpy as np
import pytest

from gettpy.backends.gpu_exact import launch_exact, scalar
from gettpy.kernels.spec import ITEMSIZE, TileConfig
from gettpy.layouts.descriptor import build_operand_layout
from gettpy.plan.simt import exact_kernel_spec

pytestmark = pytest.mark.gpu

NP = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32}


def _values(rng, shape, dt, lo=None, hi=None):
    """Random values of type `dt`, the whole range unless [lo, hi] is given."""
    info = np.iinfo(NP[dt])
    return rng.integers(info.min if lo is None else lo, info.max if hi is None else hi, size=shape, dtype=NP[dt],
                        endpoint=True)


def _wrapped(x):
    """x as uint64 bit patterns (signed values sign-extended): numpy's uint64 arithmetic on them wraps mod 2^64."""
    return x.astype(np.int64).astype(np.uint64) if x.dtype.kind == "i" else x.astype(np.uint64)


def _reference(sub, a, b, d_dt, alpha=1, beta=0, c=None):
    """numpy's einsum in int64 (exact here), times alpha plus beta C modulo 2^64, cast to D's type."""
    with np.errstate(over="ignore"):
        s = np.einsum(sub, a.astype(np.int64), b.astype(np.int64)).astype(np.uint64)
        s = s * np.uint64(alpha % 2**64)
        if c is not None:
            s = s + np.uint64(beta % 2**64) * _wrapped(c)
    return s.astype(NP[d_dt])


def _run(rng, sub, ext, dts, order="C", alpha=1, beta=0, c_dt=None, tile=None, lo=None, hi=None, lo_b=None,
         hi_b=None, wraps=False, tma=False, pad_b=None):
    """Contract einsum `sub` (the kernel's A = the first operand) with the integer kernel on the int8 tile and check
    it against numpy (wraps: every exact sum lies outside int32 as well); returns the spec."""
    import cupy as cp

    (ma, mb), md = sub.split("->")[0].split(","), sub.split("->")[1]
    groups = {"m": tuple(x for x in md if x in ma and x not in mb),
              "n": tuple(x for x in md if x in mb and x not in ma),
              "k": tuple(x for x in ma if x in mb and x not in md), "b": tuple(x for x in md if x in ma and x in mb)}
    ha = _values(rng, tuple(ext[m] for m in ma), dts[0], lo, hi)
    hb = _values(rng, tuple(ext[m] for m in mb), dts[1], lo_b, hi_b)
    hc = _values(rng, tuple(ext[m] for m in md), c_dt) if c_dt else None

    def dev(h):
        return cp.asfortranarray(cp.asarray(h)) if order == "F" else cp.ascontiguousarray(cp.asarray(h))

    a, b = dev(ha), dev(hb)
    if pad_b:  # (B as a view of a larger allocation: each mode of pad_b padded to that extent)
        big = cp.zeros(tuple(pad_b.get(m, ext[m]) for m in mb), dtype=b.dtype, order=order)
        b = big[tuple(slice(0, ext[m]) for m in mb)]
        b[...] = cp.asarray(hb)
    c = dev(hc) if c_dt else None
    d = cp.full(tuple(ext[m] for m in md), 77, dtype=NP[dts[2]], order=order)  # (unwritten: mostly not 77)

    def by_stride(x, modes, group):  # (a GEMM dimension's modes, fastest first in x: its leading map term)
        st = dict(zip(modes, x.strides, strict=True))
        return tuple(sorted(group, key=lambda m: st[m]))

    groups = {"m": by_stride(a, ma, groups["m"]), "n": by_stride(b, mb, groups["n"]),
              "k": by_stride(a, ma, groups["k"]), "b": by_stride(d, md, groups["b"])}

    def lay(name, x, modes, dims):
        st = {m: s // x.itemsize for m, s in zip(modes, x.strides, strict=True)}
        return build_operand_layout(name, {g: groups[g] for g in dims}, ext, st, ITEMSIZE[
            {"A": dts[0], "B": dts[1], "C": c_dt, "D": dts[2]}[name]])

    la, lb, ld = lay("A", a, ma, "mkb"), lay("B", b, mb, "nkb"), lay("D", d, md, "mnb")
    lc = lay("C", c, md, "mnb") if c_dt else None
    size = {g: int(np.prod([ext[m] for m in ms])) for g, ms in groups.items()}
    spec = exact_kernel_spec(la, lb, lc, ld, (dts[0], dts[1], c_dt, dts[2]),
                             (size["m"], size["n"], size["k"], size["b"]), tile, wgmma=tma, tma=tma)
    assert spec.int8, spec.tile  # (the int8 tensor-core tile, not the SIMT one)
    al, be = scalar(alpha, spec.compute, dts[2], "alpha"), scalar(beta, spec.compute, dts[2], "beta")
    launch_exact(spec, a.data.ptr, b.data.ptr, c.data.ptr if c_dt else 0, d.data.ptr, al, be)
    got = cp.asnumpy(d)
    ref = _reference(sub, ha, hb, dts[2], alpha, beta, hc)
    if wraps:
        assert np.abs(np.einsum(sub, ha.astype(np.int64), hb.astype(np.int64))).min() >= 2**31
    assert got.dtype == ref.dtype
    bad = np.argwhere(got != ref)
    assert bad.size == 0, (spec.tile, bad[:5], got[tuple(bad[0])], ref[tuple(bad[0])])
    return spec


PAIRS = [("i8", "i8"), ("u8", "u8"), ("i8", "u8"), ("u8", "i8")]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("pair", PAIRS, ids=["-".join(p) for p in PAIRS])
@pytest.mark.parametrize("k", [1040, 1036, 1032], ids=["kvec16", "kvec4", "kvec8"])
def test_gemm_odd_mn(pair, order, k, rng):
    """Odd M and N (partial tiles on both sides), k-contiguous inputs in either order (C: A[i, k], B[j, k]; F: A[k, i],
    B[k, j]), k vectors of 16, 4 and 8 values, the heuristic's int8 tile, D int32 and int8 (wrapping)."""
    sub = "ik,jk->ij" if order == "C" else "ki,kj->ij"
    spec = _run(rng, sub, {"i": 1031, "j": 1013, "k": k}, (*pair, "i32"), order)
    assert spec.a.vec == spec.b.vec == {1040: 16, 1036: 4, 1032: 8}[k]
    _run(rng, sub, {"i": 1031, "j": 1013, "k": k}, (*pair, "i8"), order)


TILES = [TileConfig(128, 128, 128, 3, wm=64, wn=64), TileConfig(128, 64, 128, 3, wm=64, wn=32),
         TileConfig(64, 64, 128, 3, wm=32, wn=32), TileConfig(128, 128, 32, 4, wm=64, wn=64),
         TileConfig(64, 64, 64, 2, wm=32, wn=32)]


@pytest.mark.parametrize("tile", TILES, ids=[f"{t.bm}x{t.bn}x{t.bk}s{t.stages}" for t in TILES])
def test_every_tile(tile, rng):
    """Each listed int8 tile (and bk 32 / 64) on odd M, N and a K that ends in a partial k-tile, with a batch."""
    _run(rng, "bik,bjk->bij", {"b": 3, "i": 301, "j": 203, "k": 1008}, ("i8", "u8", "i32"), tile=tile)


WS_TILES = [TileConfig(128, 256, 128, 4, wm=64, wn=256, wgmma=True, ws=True),
            TileConfig(128, 128, 128, 6, wm=64, wn=128, wgmma=True, ws=True)]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("pair", PAIRS, ids=["-".join(p) for p in PAIRS])
@pytest.mark.parametrize("tile", WS_TILES, ids=[f"ws{t.bm}x{t.bn}" for t in WS_TILES])
def test_wgmma_tiles(tile, pair, order, rng):
    """The warp-specialised int8 wgmma tiles: odd M, N (partial tiles on both sides) and a K ending in a partial
    k-tile (1040 = 8 x 128 + 16), a batch, every signedness pairing, both memory orders, D int32 and int8 (wrapping);
    then alpha, beta and C of 16 bits."""
    sub = "bik,bjk->bij" if order == "C" else "kib,kjb->ijb"
    ext = {"b": 2, "i": 301, "j": 203, "k": 1040}
    spec = _run(rng, sub, ext, (*pair, "i32"), order, tile=tile)
    assert spec.tile.wgmma and spec.tile.ws
    _run(rng, sub, ext, (*pair, "i8"), order, tile=tile)
    _run(rng, sub, ext, (*pair, "i32"), order, alpha=-3, beta=5, c_dt="i16", tile=tile)


def test_wgmma_long_k_overflows_int32(rng):
    """The wgmma tile's s32 accumulators wrap as numpy's int32 does (products of 14400 or more over K = 150000)."""
    _run(rng, "ik,jk->ij", {"i": 200, "j": 136, "k": 150000 // 16 * 16}, ("i8", "i8", "i32"), tile=WS_TILES[1],
         lo=-128, hi=-120, lo_b=-128, hi_b=-120, wraps=True)


TMA_TILES = [TileConfig(128, 256, 128, 4, wm=64, wn=256, wgmma=True, ws=True, tma=True),
             TileConfig(128, 256, 128, 4, wm=64, wn=256, wgmma=True, ws=True, tma=True, cluster=2),
             TileConfig(256, 160, 128, 4, wm=64, wn=160, wgmma=True, ws=True, tma=True, cluster=2),
             TileConfig(128, 208, 128, 4, wm=64, wn=208, wgmma=True, ws=True, tma=True)]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("pair", PAIRS, ids=["-".join(p) for p in PAIRS])
@pytest.mark.parametrize("tile", TMA_TILES, ids=[f"tma{t.bm}x{t.bn}c{t.cluster}" for t in TMA_TILES])
def test_tma_tiles(tile, pair, order, rng):
    """The TMA-fed int8 wgmma tiles (boxes of 128 one-byte values a row), alone and in clusters of two: odd N and
    an M of an even number of tile rows ending in a partial one (the cluster's pair), a K ending in a partial k-tile
    that the boxes zero-fill, a batch, every signedness pairing, both orders; then alpha, beta and C."""
    sub = "bik,bjk->bij" if order == "C" else "kib,kjb->ijb"
    ext = {"b": 2, "i": 2 * tile.bm * 2 - 37, "j": 203, "k": 1040}
    spec = _run(rng, sub, ext, (*pair, "i32"), order, tile=tile)
    assert spec.tile.tma and spec.tile.cluster == tile.cluster
    _run(rng, sub, ext, (*pair, "i32"), order, alpha=-3, beta=5, c_dt="i16", tile=tile)


def test_tma_tile_chosen(rng):
    """On a device with TMA, the heuristic feeds a compute-bound int8 GEMM whose rows are 16-byte aligned by TMA,
    and its sums are numpy's (wrapping int32)."""
    from gettpy.plan.target import device_target

    if not device_target().tma:
        pytest.skip("no TMA on this device")
    spec = _run(rng, "ik,jk->ij", {"i": 1536, "j": 1200, "k": 2048 + 48}, ("i8", "i8", "i32"), tile=None,
                tma=True)
    assert spec.tile.tma and spec.tile.wgmma, spec.tile


def test_tma_split_map(rng):
    """B's n dimension as two stride terms read through a split tensor map: D[i, j, c] = A[i, k] B[c, j, k] with B a
    view whose 96 j rows lie in an allocation of 128, so that n = j + 96 c has strides k and 128 k: the map is cut
    at j's extent; numpy's int32 sums."""
    from gettpy.plan.target import device_target

    if not device_target().tma:
        pytest.skip("no TMA on this device")
    spec = _run(rng, "ik,cjk->ijc", {"i": 1000, "j": 96, "c": 30, "k": 2048}, ("i8", "i8", "i32"), tma=True,
                pad_b={"j": 128})
    assert spec.tile.tma and spec.tma_splits[1] == 96, (spec.tile, spec.tma_splits)


def test_permuted_einsum_packs_for_tma(rng, monkeypatch):
    """A contraction over two k modes with both inputs permuted (no tensor map in place): gettpy.einsum packs them
    k-major for the TMA-fed int8 tile (schedule._int8_tma_packs) on a TMA device, with numpy's int32 values."""
    import cupy as cp

    import gettpy
    from gettpy.backends import gpu_exact
    from gettpy.plan.target import device_target

    if not device_target().tma:
        pytest.skip("no TMA on this device")
    specs = []
    real = gpu_exact.launch_exact
    monkeypatch.setattr(gpu_exact, "launch_exact", lambda spec, *a, **k: (specs.append(spec), real(spec, *a, **k))[1])
    ext = {"a": 48, "b": 40, "c": 44, "d": 52, "e": 32, "f": 40}
    ha = rng.integers(-128, 128, size=[ext[m] for m in "aebf"], dtype=np.int8)
    hb = rng.integers(-128, 128, size=[ext[m] for m in "dfce"], dtype=np.int8)
    out = cp.full([ext[m] for m in "abcd"], 77, dtype=np.int32)
    got = gettpy.einsum("aebf,dfce->abcd", cp.asarray(ha), cp.asarray(hb), out=out)
    ref = np.einsum("aebf,dfce->abcd", ha.astype(np.int64), hb.astype(np.int64)).astype(np.int32)
    assert (cp.asnumpy(got) == ref).all()
    assert any(s.int8 and s.tile.tma for s in specs), [s.tile for s in specs]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dts,c_dt", [(("i8", "i8", "i32"), "i32"), (("u8", "i8", "i16"), "i8"),
                                      (("u8", "u8", "u32"), "u16"), (("i8", "u8", "i8"), "i8")],
                         ids=["i32-c_i32", "i16-c_i8", "u32-c_u16", "i8-c_i8"])
def test_alpha_beta_c(dts, c_dt, order, rng):
    """D = alpha A B + beta C with negative alpha and beta (modulo 2^32) and C of several types, in 32-bit wrap."""
    sub = "ik,jk->ij" if order == "C" else "ki,kj->ij"
    spec = _run(rng, sub, {"i": 777, "j": 1029, "k": 1024}, dts, order, alpha=-3, beta=-7, c_dt=c_dt)
    assert spec.read_c


@pytest.mark.parametrize("pair,k,lo,hi,lo_b,hi_b", [
    (("i8", "i8"), 150000 // 16 * 16, -128, -120, -128, -120),  # (products of 14400 or more: sums past 2^31)
    (("u8", "u8"), 56000, 200, 255, 200, 255),  # (products of 40000 or more)
    (("i8", "u8"), 112000, -128, -100, 200, 255),  # (products of -20000 or less: sums below -2^31)
], ids=["i8", "u8", "mixed"])
def test_long_k_overflows_int32(pair, k, lo, hi, lo_b, hi_b, rng):
    """K long enough that every 32-bit accumulator wraps: D of int32 and int16 hold numpy's wrapped values."""
    tile = TileConfig(64, 64, 128, 3, wm=32, wn=32)
    for d in ("i32", "i16"):
        _run(rng, "ik,jk->ij", {"i": 40, "j": 24, "k": k}, (*pair, d), tile=tile, lo=lo, hi=hi, lo_b=lo_b, hi_b=hi_b,
             wraps=True)


@pytest.mark.parametrize("order", ["C", "F"])
def test_tensor_contraction(order, rng):
    """A contraction over two k modes and two m modes, k-contiguous in both inputs (k modes first in F order, last in
    C order), odd extents."""
    sub = "abkl,cdkl->abcd" if order == "C" else "klab,klcd->abcd"
    _run(rng, sub, {"a": 37, "b": 29, "c": 31, "d": 41, "k": 16, "l": 65}, ("u8", "i8", "i32"), order)


EINSUMS = [  # (id, subscripts, shapes, input dtypes, out dtype (None: numpy's result type), order)
    ("matmul_i8_out_i32_C", "ik,kj->ij", [(1031, 1029), (1029, 1013)], (np.int8, np.int8), np.int32, "C"),
    ("matmul_u8_out_i32_F", "ik,kj->ij", [(1031, 1040), (1040, 1013)], (np.uint8, np.uint8), np.int32, "F"),
    ("nt_u8_out_i16", "ik,jk->ij", [(1031, 1040), (1013, 1040)], (np.uint8, np.uint8), np.int16, "C"),
    ("matmul_i8_result_i8", "ik,kj->ij", [(1031, 1040), (1040, 1013)], (np.int8, np.int8), None, "C"),
    ("batch_i8", "bik,bkj->bij", [(3, 801, 1035), (3, 1035, 751)], (np.int8, np.int8), np.int32, "C"),
    ("contract_i8", "aebf,dfce->abcd", [(41, 32, 37, 36), (29, 36, 31, 32)], (np.int8, np.int8), np.int32, "F"),
    ("matmul_i8_dtype_i32", "ik,kj->ij", [(1031, 1040), (1040, 1013)], (np.int8, np.int8), "dtype=int32", "C"),
]


@pytest.mark.parametrize("case", EINSUMS, ids=[c[0] for c in EINSUMS])
def test_einsum_on_cupy(case, rng, monkeypatch):
    """gettpy.einsum on CuPy int8 / uint8 arrays into an int32 / int16 `out` or with dtype=int32 (the inputs stay
    8-bit: numpy's promotion keeps one kind's types, and dtype= widens them as they are read) or numpy's own int8
    result (the schedule packs an input k-major where the int8
    tile needs it, zero-filled for an odd K): numpy's values, and the int8 tile launched."""
    import cupy as cp

    import gettpy
    from gettpy.backends import gpu_exact

    specs = []
    real = gpu_exact.launch_exact
    monkeypatch.setattr(gpu_exact, "launch_exact", lambda spec, *a, **k: (specs.append(spec), real(spec, *a, **k))[1])
    _, subs, shapes, dts, out_dt, order = case
    hs = [rng.integers(np.iinfo(dt).min, np.iinfo(dt).max, size=s, dtype=dt, endpoint=True)
          for s, dt in zip(shapes, dts, strict=True)]
    xs = [cp.asarray(h, order=order) for h in hs]
    by_dtype = out_dt == "dtype=int32"  # (dtype= widening 8-bit inputs: they stay 8-bit, dtypes.resolve)
    out_dt = np.int32 if by_dtype else out_dt
    with np.errstate(over="ignore"):
        ref = np.einsum(subs, *[h.astype(np.int64) for h in hs]).astype(out_dt or np.result_type(*dts))
    if by_dtype:
        got = gettpy.einsum(subs, *xs, dtype=np.int32)
    elif out_dt is None:
        got = gettpy.einsum(subs, *xs)
    else:
        out = cp.full(ref.shape, 77, dtype=out_dt, order=order)
        got = gettpy.einsum(subs, *xs, out=out)
        assert got is out
    assert got.dtype == ref.dtype
    assert (cp.asnumpy(got) == ref).all()
    assert any(s.int8 for s in specs), [s.tile for s in specs]
    from gettpy.plan.target import device_target

    if device_target().wgmma:  # (16-value k runs on both inputs: the warp-specialised wgmma tile)
        assert all(s.tile.wgmma for s in specs if s.int8 and s.a.vec == s.b.vec == 16), [s.tile for s in specs]
