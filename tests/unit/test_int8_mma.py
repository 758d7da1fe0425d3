"""The int8 tensor-core path (mma.sync m16n8k32 in the GETT template), pure Python: a numpy emulation of how the
template loads the instruction's fragments (ldmatrix of k-major byte tiles) checked against an enumeration of the
PTX ISA's fragment layout; where the planner takes the int8 tile (plan/heuristic.py's int8_mma_tile, the integer
kernel's lowering, the schedule's k-major packs) and where it keeps the SIMT kernel; what KernelSpec refuses on an
int8 tile; int8 einsums run through the GPU's schedules on the CPU executor against numpy's int64 arithmetic."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from harness import dense_problem, einsum_layouts, packed_strides

from gettpy.errors import KernelError
from gettpy.plan.heuristic import int8_mma_tile
from gettpy.plan.problem import ContractionProblem, TensorInfo
from gettpy.plan.schedule import make_schedule
from gettpy.plan.simt import exact_kernel_spec
from gettpy.plan.target import DEFAULT_TARGET

# ------------------------------------------------------------------------------------- fragment index maps


def ptx_a(lane: int, i: int) -> tuple[int, int]:
    """(row, k) of element a_i of `lane`'s A fragment of mma.m16n8k32 with .s8 / .u8 (PTX ISA, written from its
    formulas: groupID = lane >> 2, threadID_in_group = lane % 4)."""
    g, t = lane >> 2, lane % 4
    row = g if (i < 4 or 8 <= i < 12) else g + 8
    col = t * 4 + (i & 3) + (16 if i >= 8 else 0)
    return row, col


def ptx_b(lane: int, i: int) -> tuple[int, int]:
    """(k, column) of element b_i of `lane`'s B fragment (m16n8k32, .s8 / .u8)."""
    g, t = lane >> 2, lane % 4
    return t * 4 + (i & 3) + (16 if i >= 4 else 0), g


def ptx_c(lane: int, i: int) -> tuple[int, int]:
    """(row, column) of accumulator c_i of `lane` (m16n8k32, .s32)."""
    g, t = lane >> 2, lane % 4
    return g + (8 if i >= 2 else 0), t * 2 + (i & 1)


def ldmatrix(tile: np.ndarray, addresses, count: int) -> np.ndarray:
    """ldmatrix.sync.aligned.m8n8.x{count}.shared.b16 (not transposed) on a byte tile: `addresses[lane]` = (row, first
    byte) that lane supplies (lanes 8 j .. 8 j + 7: the rows of matrix j). Returns regs[lane, j, 4] (the 4 bytes of
    register j, lowest first): each matrix's row lane // 4, 2-byte columns 2 (lane % 4), + 1."""
    regs = np.zeros((32, count, 4), dtype=tile.dtype)
    for j in range(count):
        for lane in range(32):
            r, c0 = addresses[8 * j + lane // 4]
            regs[lane, j] = tile[r, c0 + 4 * (lane % 4): c0 + 4 * (lane % 4) + 4]
    return regs


def kernel_a_fragment(tile: np.ndarray, mrow0: int, kk: int) -> np.ndarray:
    """A's fragment as gett_tile.cuh loads it from a k-major tile (rows m, bytes k): lane supplies row mrow0 +
    (li & 1) * 8 + lr, byte kk + (li >> 1) * KSTEP / 2 (li = lane >> 3, lr = lane & 7, KSTEP = 32)."""
    addr = [(mrow0 + ((lane >> 3) & 1) * 8 + (lane & 7), kk + (lane >> 4) * 16) for lane in range(32)]
    return ldmatrix(tile, addr, 4)


def kernel_b_fragment(tile: np.ndarray, ncol0: int, kk: int) -> np.ndarray:
    """B's fragment as gett_tile.cuh loads it from a k-major tile (rows n, bytes k) with .x2: lane supplies row ncol0
    + lr, byte kk + j * 16 (j = (lane >> 3) & 1; lanes 16..31 repeat 0..15)."""
    addr = [(ncol0 + (lane & 7), kk + ((lane >> 3) & 1) * 16) for lane in range(32)]
    return ldmatrix(tile, addr, 2)


def test_fragments_match_the_ptx_layout():
    """Every byte the kernel's ldmatrix loads lands where m16n8k32 expects that (row, k) element, and the fragments
    cover each element of the 16 x 32 A and 32 x 8 B once; both at an offset inside a larger, padded tile."""
    rows, pitch = 48, 80  # (a k-major stage: 48 rows of 64 bytes + 16 of padding)
    tile = np.arange(rows * pitch, dtype=np.int64).reshape(rows, pitch)  # (each byte its own address)

    def check(frag, values, where, at, shape):
        """Each lane's `values` bytes of `frag` hold the tile bytes `at(where(lane, i))`; `where` covers `shape`."""
        seen = set()
        for lane in range(32):
            for i in range(values):
                pos = where(lane, i)
                assert frag[lane, i // 4, i % 4] == at(*pos), (lane, i)
                seen.add(pos)
        assert seen == {(x, y) for x in range(shape[0]) for y in range(shape[1])}

    for mrow0, kk in ((0, 0), (16, 32), (32, 32)):
        check(kernel_a_fragment(tile, mrow0, kk), 16, ptx_a, lambda r, c, m0=mrow0, k0=kk: tile[m0 + r, k0 + c],
              (16, 32))
    for ncol0, kk in ((0, 0), (8, 32), (40, 0)):
        check(kernel_b_fragment(tile, ncol0, kk), 8, ptx_b, lambda k, n, n0=ncol0, k0=kk: tile[n0 + n, k0 + k], (32, 8))


def kernel_c(lane: int, j: int) -> tuple[int, int]:
    """(row, column) of accumulator j of `lane` as gett_tile.cuh's staged epilogue places it: acc[.. + 2 h + e] at
    row g + h * 8, column 2 (lane % 4) + e."""
    h, e = j >> 1, j & 1
    return (lane >> 2) + h * 8, 2 * (lane & 3) + e


def test_accumulators_match_the_ptx_layout():
    assert all(kernel_c(lane, j) == ptx_c(lane, j) for lane in range(32) for j in range(4))
    assert {kernel_c(lane, j) for lane in range(32) for j in range(4)} == {(r, c) for r in range(16) for c in range(8)}


def _gather_maps():
    """Flat (row * 32 + k) positions of each fragment byte as the kernel loads them (A: [lane, register, byte] of a
    16 x 32 block; B: of an 8 x 32 k-major block), and where the PTX layout puts each element a_i / b_i."""
    fa = kernel_a_fragment(np.arange(16 * 32).reshape(16, 32), 0, 0).reshape(32, 16)
    fb = kernel_b_fragment(np.arange(8 * 32).reshape(8, 32), 0, 0).reshape(32, 8)
    pa = np.array([[ptx_a(lane, i) for i in range(16)] for lane in range(32)])  # (row, k)
    pb = np.array([[ptx_b(lane, i) for i in range(8)] for lane in range(32)])  # (k, column)
    return fa, fb, pa, pb


def test_fragment_mma_emulation_wraps_like_numpy():
    """A k-loop of m16n8k32 steps emulated on the fragments the kernel loads (each step: the 16 x 32 A and 32 x 8 B
    rebuilt from the lanes' bytes by the PTX layout, their product added to 32-bit accumulators that wrap), over
    K = 32 x 3000 large values whose sums leave int32: the accumulators are numpy's int64 sums modulo 2^32, and
    their low bits cast to int8 / int16 / int32 equal numpy's wrap-around casts."""
    rng = np.random.default_rng(3)
    steps = 3000
    sign = np.where(np.arange(16) % 2, 1, -1)[:, None]  # (rows of one sign: their sums leave int32 both ways)
    a = (sign * rng.integers(100, 128, size=(16, 32 * steps))).astype(np.int8)
    b = rng.integers(200, 256, size=(8, 32 * steps), dtype=np.uint8)  # (B k-major: rows n)
    ref = a.astype(np.int64) @ b.astype(np.int64).T
    assert np.abs(ref).max() >= 2**31  # (the sums leave int32)
    fa, fb, pa, pb = _gather_maps()
    ab = a.reshape(16, steps, 32).transpose(1, 0, 2).reshape(steps, -1).astype(np.int64)
    bb = b.reshape(8, steps, 32).transpose(1, 0, 2).reshape(steps, -1).astype(np.int64)
    fra, frb = ab[:, fa], bb[:, fb]  # (steps, 32 lanes, 16 / 8 fragment values)
    big_a = np.zeros((steps, 16, 32), dtype=np.int64)
    big_b = np.zeros((steps, 32, 8), dtype=np.int64)
    big_a[:, pa[..., 0], pa[..., 1]] = fra
    big_b[:, pb[..., 0], pb[..., 1]] = frb
    acc = np.zeros((16, 8), dtype=np.uint32)
    for prod in np.matmul(big_a, big_b):  # (one mma a k-step; uint32 additions wrap modulo 2^32)
        acc += (prod % 2**32).astype(np.uint32)
    assert np.array_equal(acc, (ref % 2**32).astype(np.uint32))
    for t in (np.int8, np.int16, np.int32):
        assert np.array_equal(acc.view(np.int32).astype(t), ref.astype(t))


# ------------------------------------------------------------------------------------- the planner's choice


def _spec(sub, ext, dts, order="C", c=None, tile=None):
    la, lb, lc, ld, dtypes, extents = einsum_layouts(sub, ext, dts, order, c)
    return exact_kernel_spec(la, lb, lc, ld, dtypes, extents, tile)


I8 = ("i8", "i8", None, "i32")
#: (M, N, K, batch, dtypes, compute, kvec) -> (bm, bn, bk, stages) or None (the SIMT kernel)
TILE_CASES = [
    ((3001, 2999, 1031, 1, I8, "u32", 16), (128, 128, 128, 3)),  # (compute-bound, odd extents)
    ((3001, 2999, 1031, 1, ("u8", "i8", "i16", "u8"), "u32", 4), (128, 128, 32, 4)),  # (mixed; k vectors of 4)
    ((3001, 2999, 1031, 1, I8, "u32", 8), (128, 128, 64, 4)),  # (k vectors of 8: 8 of them a row)
    ((1000, 1000, 1000, 1, I8, "u32", 16), (64, 64, 128, 3)),  # (64 or 128 tiles of 128 rows: under a wave)
    ((1400, 1400, 1000, 1, I8, "u32", 16), (128, 64, 128, 3)),  # (121 of 128 x 128, 242 of 128 x 64)
    ((900, 850, 870, 1, I8, "u32", 16), (64, 64, 128, 3)),
    ((1031, 1031, 1031, 3, I8, "u32", 16), (128, 128, 128, 3)),  # (a batch fills the wave)
    ((4000, 4000, 400, 1, I8, "u32", 16), (128, 128, 128, 3)),  # (K = 400: 4 k-tiles, 3 stages)
    ((3001, 2999, 1031, 1, I8, "u32", 2), None),  # (k runs of 2: no 4-byte copies along k)
    ((3001, 2999, 1031, 1, ("i8", "i16", None, "i32"), "u32", 16), None),  # (a 2-byte input)
    ((3001, 2999, 1031, 1, ("i8", "i8", None, "i64"), "u64", 16), None),  # (64-bit D: u64 accumulators)
    ((3001, 2999, 1031, 1, ("i8", "i8", None, "b1"), "u32", 16), None),  # (bool D: sum != 0)
    ((3001, 2999, 1031, 1, ("i8", "i8", "b1", "i32"), "u32", 16), None),  # (bool C)
    ((3001, 2999, 100, 1, I8, "u32", 16), None),  # (memory-bound: K = 100)
    ((100000, 24, 5000, 1, I8, "u32", 16), None),  # (a narrow side: memory-bound)
]


@pytest.mark.parametrize("args,want", TILE_CASES, ids=[f"case{i}" for i in range(len(TILE_CASES))])
def test_int8_mma_tile_rule(args, want):
    t = int8_mma_tile(*args, sm_count=132)
    if want is None:
        assert t is None
    else:
        assert (t.bm, t.bn, t.bk, t.stages) == want and t.mma and not t.wgmma
        assert t.wm * 2 == t.bm and t.threads == 128  # (four warps of the f16 tiles' warp layout)


#: with wgmma on the device: (M, N, K, batch, dtypes, compute, kvec) -> (bm, bn, stages) of the warp-specialised
#: wgmma tile, or "mma" (the mma.sync tile: k runs under 16 values), or None (the SIMT kernel)
WG_CASES = [
    ((3001, 2999, 1040, 1, I8, "u32", 16), (128, 128, 6)),  # (24 x 12 of 128 x 256 = 1.09 waves; 24 x 24 = 4.4)
    ((4096, 4096, 4096, 1, ("u8", "i8", None, "i32"), "u32", 16), (128, 256, 4)),  # (512 tiles: 3.9 waves)
    ((1031, 1031, 1031, 3, ("u8", "u8", "u16", "u32"), "u32", 16), (128, 128, 6)),
    ((3001, 2999, 1040, 1, I8, "u32", 8), "mma"),  # (k runs of 8: no 16-byte copies for the loading warpgroup)
    ((3001, 2999, 1040, 1, I8, "u32", 4), "mma"),
    ((3001, 2999, 100, 1, I8, "u32", 16), None),  # (memory-bound)
    ((3001, 2999, 1040, 1, ("i8", "i8", None, "i64"), "u64", 16), None),
]


@pytest.mark.parametrize("args,want", WG_CASES, ids=[f"case{i}" for i in range(len(WG_CASES))])
def test_int8_wgmma_tile_rule(args, want):
    t = int8_mma_tile(*args, sm_count=132, wgmma=True)
    if want is None:
        assert t is None
    elif want == "mma":
        assert t.mma and not t.wgmma
    else:
        assert (t.bm, t.bn, t.stages) == want and t.wgmma and t.ws and not t.tma and t.bk == 128
        assert t.threads == 384 and t.wn == t.bn
    # a device without wgmma: the mma.sync tile, whatever the k runs
    t = int8_mma_tile(*args, sm_count=132, wgmma=False)
    assert t is None if want is None else (t.mma and not t.wgmma)


def test_lowering_takes_the_int8_wgmma_tile():
    """With wgmma, 16-byte k runs on both inputs lower to the warp-specialised wgmma tile (the rendered wgmma is
    m64n{bn}k32 on s8/u8 into s32 registers, no transpose flags); runs of 8 to the mma.sync tile."""
    from gettpy.kernels.render import render_wgmma

    spec = exact_kernel_spec(*einsum_layouts("ik,jk->ij", {"i": 4096, "j": 4096, "k": 4096}, ("u8", "i8", "i32")),
                             wgmma=True)
    assert spec.int8 and spec.tile.wgmma and spec.tile.ws and spec.a.vec == spec.b.vec == 16
    text = render_wgmma(spec)
    assert f"wgmma.mma_async.sync.aligned.m64n{spec.tile.bn}k32.s32.u8.s8" in text and '"+r"(d[0])' in text
    assert "unsigned* d" in text and ", 1, 1," not in text
    spec = exact_kernel_spec(*einsum_layouts("ik,jk->ij", {"i": 4096, "j": 4096, "k": 4104}, ("u8", "i8", "i32")),
                             wgmma=True)
    assert spec.int8 and not spec.tile.wgmma and spec.a.vec == 8


def test_lowering_feeds_the_int8_wgmma_tile_by_tma():
    """With TMA as well, 16-byte-aligned k rows on both inputs take a TMA-fed wgmma tile (plan/passes.py's tma_tile:
    a TMA_SHAPES shape, bk = 128 one-byte values, clusters of two over an even number of tile rows), whose maps are
    UINT8 boxes of 128 values a row; rows that TMA cannot address (K = 4104: 8-byte vectors) keep the mma.sync tile,
    and a device without TMA the cp.async-fed wgmma tile."""
    from gettpy.plan.passes import TMA_SHAPES

    lay = einsum_layouts("ik,jk->ij", {"i": 4096, "j": 4096, "k": 4096 + 48}, ("i8", "u8", "i32"))
    spec = exact_kernel_spec(*lay, wgmma=True, tma=True)
    t = spec.tile
    assert spec.int8 and t.tma and t.ws and t.wgmma and t.bk == 128 and (t.bm, t.bn) in TMA_SHAPES
    assert t.cluster == 2 and -(-4096 // t.bm) % 2 == 0
    ga, gb = spec.tma_geometries
    assert (ga.dtype, ga.dims, ga.strides, ga.box) == ("i8", (4144, 4096), (4144,), (128, t.bm))
    assert (gb.dtype, gb.dims, gb.strides, gb.box) == ("u8", (4144, 4096), (4144,), (128, t.bn // 2))
    assert not exact_kernel_spec(*lay, wgmma=True, tma=False).tile.tma
    spec = exact_kernel_spec(*einsum_layouts("ik,jk->ij", {"i": 4096, "j": 4096, "k": 4104}, ("u8", "i8", "i32")),
                             wgmma=True, tma=True)
    assert spec.int8 and not spec.tile.wgmma and not spec.tile.tma


def test_lowering_takes_the_int8_tile_on_kmajoreinsum_layouts():
    # row-major A[i, k] and B[j, k], K a multiple of 16: both k-major in 16-byte vectors, in place
    spec = _spec("ik,jk->ij", {"i": 3001, "j": 2999, "k": 1040}, ("i8", "u8", "i32"))
    assert spec.int8 and spec.tile.mma and spec.compute == "u32"
    assert spec.a.kmajor and spec.b.kmajor and spec.a.vec == spec.b.vec == 16 and spec.tile.bk == 128
    # a batch, C read (16 bits), D of 8 bits, column-major with k first
    spec = _spec("kib,kjb->ijb", {"b": 3, "i": 1031, "j": 1027, "k": 1024}, ("u8", "u8", "u8"), "F", c="i16")
    assert spec.int8 and spec.read_c and spec.batch == 3
    # k runs of 4 (K = 1036): vectors of 4 along k
    spec = _spec("ik,jk->ij", {"i": 3001, "j": 2999, "k": 1036}, ("i8", "i8", "i32"))
    assert spec.int8 and spec.a.vec == spec.b.vec == 4


def test_rendered_prelude_of_a_mixed_tile():
    """The prelude gives the template what selects Mma<unsigned char, signed char> (u8 x s8 m16n8k32): the 8-bit
    input types, 32-bit unsigned accumulators, an mma tile, both inputs k-major."""
    from gettpy.kernels.render import render_prelude

    text = render_prelude(_spec("ik,jk->ij", {"i": 3001, "j": 2999, "k": 1040}, ("u8", "i8", "i16")))
    for line in ("using TA = unsigned char;", "using TB = signed char;", "using TD = short;", "using TAcc = unsigned;",
                 "static constexpr bool MMA = true;", "A_KMAJOR = true, B_KMAJOR = true", "BK = 128,"):
        assert line in text, line


@pytest.mark.parametrize("sub,ext,dts,order", [
    ("ik,kj->ij", {"i": 3001, "j": 2999, "k": 1040}, ("i8", "i8", "i32"), "C"),  # (B n-major in place)
    ("ik,jk->ij", {"i": 3001, "j": 2999, "k": 1031}, ("i8", "i8", "i32"), "C"),  # (odd K: no aligned k runs)
    ("ik,jk->ij", {"i": 3001, "j": 2999, "k": 1040}, ("i8", "i8", "i32"), "F"),  # (both mn-major)
    ("ik,jk->ij", {"i": 3001, "j": 2999, "k": 1040}, ("i8", "i8", "i64"), "C"),  # (64-bit D)
    ("ik,jk->ij", {"i": 3001, "j": 2999, "k": 1040}, ("i8", "i8", "b1"), "C"),  # (bool D)
    ("ik,jk->ij", {"i": 3001, "j": 2999, "k": 1040}, ("i16", "i8", "i32"), "C"),  # (a 2-byte input)
    ("ik,jk->ij", {"i": 300, "j": 299, "k": 1040}, ("i8", "i8", "i32"), "C"),  # (memory-bound)
])
def test_lowering_keeps_the_simt_kernel(sub, ext, dts, order):
    spec = _spec(sub, ext, dts, order)
    assert not spec.tile.mma and not spec.int8


def _problem(eq, ext, dts, order="C"):
    lhs, out = eq.split("->")
    ins = lhs.split(",")

    def info(name, modes, dt):
        st = dict(zip(modes, packed_strides([ext[m] for m in modes], order), strict=True))
        return TensorInfo(name, tuple(modes), tuple(st[m] for m in modes), dt)

    return ContractionProblem(info("A", ins[0], dts[0]), info("B", ins[1], dts[1]), None, info("D", out, dts[2]),
                              tuple(sorted(ext.items())))


def _core_spec(s):
    """The integer kernel's spec of a schedule's core on its (packed) layouts."""
    core = s.core
    p = core.problem
    return exact_kernel_spec(core.layout_a, core.layout_b, None, core.layout_d,
                             (core.kernel_a.dtype, core.kernel_b.dtype, None, p.d.dtype),
                             (core.M, core.N, core.K, core.batch))


NO_TMA = dataclasses.replace(DEFAULT_TARGET, tma=False)


@pytest.mark.parametrize("eq,ext,order,packs,pad,target", [
    ("ik,jk->ij", {"i": 2000, "j": 1500, "k": 1024}, "C", (False, False), False, NO_TMA),  # (k-major in place)
    ("ik,kj->ij", {"i": 2000, "j": 1500, "k": 1036}, "C", (False, True), False, NO_TMA),  # (B packed k fastest)
    ("ki,kj->ij", {"i": 2000, "j": 1500, "k": 1024}, "C", (True, True), False, NO_TMA),
    ("ik,kj->ij", {"i": 2000, "j": 1500, "k": 1029}, "C", (True, True), True, NO_TMA),  # (odd K: zero-filled)
    ("ik,kj->ij", {"i": 2000, "j": 1500, "k": 1029}, "F", (True, True), True, NO_TMA),
    ("ik,jk->ij", {"i": 2000, "j": 1500, "k": 1024}, "C", (False, False), False, DEFAULT_TARGET),  # (maps in place)
    # (TMA: A's rows of 1036 have no tensor map; B is packed anyway, so A's copy (~5 us with its launch) buys the
    #  TMA tile's rate on 6.2 G ops (~6 us saved), and the single k mode is zero-filled to whole 16-byte rows)
    ("ik,kj->ij", {"i": 2000, "j": 1500, "k": 1036}, "C", (True, True), True, DEFAULT_TARGET),
    ("ki,kj->ij", {"i": 2000, "j": 1500, "k": 1024}, "C", (True, True), False, DEFAULT_TARGET),
])
def test_schedule_packs_int8_inputs_kmajor(eq, ext, order, packs, pad, target):
    s = make_schedule(_problem(eq, ext, ("i8", "u8", "i32"), order), sm_count=132, target=target)
    assert (s.pack_a is not None, s.pack_b is not None) == packs
    assert bool(s.pad_ext) == pad
    if pad:
        assert dict(s.pad_ext)["k"] % 16 == 0
    spec = _core_spec(s)
    assert spec.int8 and spec.a.kmajor and spec.b.kmajor and spec.a.vec >= 4 and spec.b.vec >= 4
    if target.tma:  # (both inputs read through tensor maps)
        tma = exact_kernel_spec(s.core.layout_a, s.core.layout_b, None, s.core.layout_d,
                                (s.core.kernel_a.dtype, s.core.kernel_b.dtype, None, "i32"),
                                (s.core.M, s.core.N, s.core.K, s.core.batch), wgmma=True, tma=True)
        assert tma.tile.tma, tma.tile


@pytest.mark.parametrize("ext,packs", [
    # (K = 24 x 40 = 960 over two k modes, one stride term in neither input: no tensor map in place)
    ({"a": 3000, "b": 2500, "e": 24, "f": 40}, True),
    # (a small GEMM: its 0.24 G ops save under a microsecond at the TMA tile's rate, less than a copy's launch)
    ({"a": 100, "b": 50, "e": 24, "f": 40}, False),
])
def test_schedule_packs_int8_inputs_for_tma(ext, packs):
    """On a device with TMA, a compute-bound int8 core whose inputs have no tensor maps (two k modes, permuted) has
    both packed k-major and dense where the model says the TMA tile's rate pays for the copies; the core then reads
    both through maps. Without TMA, A's k runs of 8 are read in place (B, without k runs along the core's leading k
    mode, is packed either way); a small GEMM keeps those packs with TMA too."""
    p = _problem("eaf,fbe->ab", ext, ("i8", "i8", "i32"))  # (row-major: A's k runs along f, B's along e)
    s0 = make_schedule(p, sm_count=132, target=NO_TMA)
    assert s0.pack_a is None and s0.pack_b is not None
    s = make_schedule(p, sm_count=132)
    if packs:
        assert s.pack_a is not None and s.pack_b is not None
        spec = exact_kernel_spec(s.core.layout_a, s.core.layout_b, None, s.core.layout_d,
                                 (s.core.kernel_a.dtype, s.core.kernel_b.dtype, None, "i32"),
                                 (s.core.M, s.core.N, s.core.K, s.core.batch), wgmma=True, tma=True)
        assert spec.tile.tma and spec.K == 24 * 48, spec.tile  # (f zero-filled to whole 16-byte vectors)
    else:
        assert (s.pack_a, s.pack_b) == (s0.pack_a, s0.pack_b)


@pytest.mark.parametrize("dts", [("i16", "i8", "i32"), ("i8", "i8", "i64"), ("i8", "i8", "b1")])
def test_schedule_leaves_other_integer_problems_on_simt(dts):
    s = make_schedule(_problem("ik,kj->ij", {"i": 2000, "j": 1500, "k": 1024}, dts), sm_count=132)
    assert not _core_spec(s).tile.mma


# ------------------------------------------------------------------------------------- KernelSpec's refusals


@pytest.fixture(scope="module")
def int8_spec():
    spec = _spec("ik,jk->ij", {"i": 3001, "j": 2999, "k": 1040}, ("i8", "u8", "i32"))
    assert spec.int8
    return spec


def _tile(spec, **kw):
    return dataclasses.replace(spec, tile=dataclasses.replace(spec.tile, **kw))


REFUSALS = [
    (lambda s: dataclasses.replace(s, a=dataclasses.replace(s.a, dtype="i16", vec=8)), "operand A.*mma path needs"),
    (lambda s: dataclasses.replace(s, b=dataclasses.replace(s.b, kmajor=False)), "operand B.*k-major"),
    (lambda s: dataclasses.replace(s, a=dataclasses.replace(s.a, vec=2)), "operand A.*k runs of 4 to 16"),
    (lambda s: dataclasses.replace(s, compute="u64", d=dataclasses.replace(s.d, dtype="i64")), "u32"),
    (lambda s: dataclasses.replace(s, d=dataclasses.replace(s.d, dtype="b1", vec=1)), "operand D.*at most 32 bits"),
    (lambda s: _tile(s, bk=48), "bk=48 is not a multiple of 32"),
    (lambda s: _tile(s, persistent=True), "not implemented with persistent"),
    (lambda s: _tile(s, sk_ctas=132), "not implemented with sk_ctas"),
    (lambda s: dataclasses.replace(s, op_b="-x"), "not implemented with op_b"),
    (lambda s: dataclasses.replace(s, semiring=("max(a, b)", "(x + y)", "0")), "semiring"),
    (lambda s: dataclasses.replace(s, compute="f32"), "mma path needs"),
    (lambda s: _tile(s, wm=64, wn=128, bk=128, wgmma=True), "not implemented with wgmma without ws"),
    (lambda s: _tile(s, wm=64, wn=128, bk=64, wgmma=True, ws=True), "128-byte swizzle row.*not bk=64"),
    (lambda s: _tile(s, wm=64, wn=128, bk=128, wgmma=True, ws=True, tma=True, rows=2), "rows"),
    (lambda s: _tile(s, wm=64, bn=40, wn=40, bk=128, wgmma=True, ws=True), "integer wgmma.*not bn=40"),
]


@pytest.mark.parametrize("change,match", REFUSALS, ids=[m.split(".*")[-1][:24] for _, m in REFUSALS])
def test_int8_spec_refusals(int8_spec, change, match):
    with pytest.raises(KernelError, match=match):
        change(int8_spec)


def test_int8_spec_refuses_bool_c(int8_spec):
    from gettpy.kernels.spec import OutputSpec

    d = int8_spec.d
    with pytest.raises(KernelError, match="operand C.*at most 32 bits"):
        dataclasses.replace(int8_spec, c=OutputSpec("b1", d.m, d.n, d.b), read_c=True)


# ------------------------------------------------------------------------------------- end to end on the CPU


@pytest.mark.parametrize("eq,sa,sb,dts", [
    ("ik,kj->ij", (845, 843), (843, 850), (np.int8, np.int8, np.int32)),  # (odd K: zero-filled k-major packs)
    ("ik,jk->ij", (860, 848), (850, 848), (np.uint8, np.uint8, np.int16)),  # (in place; sums wrap in int16)
    ("ik,kj->ij", (845, 848), (848, 850), (np.int8, np.int8, None)),  # (numpy's int8 result: B packed)
])
def test_int8_einsum_through_the_gpu_schedules(rng, gpu_schedules_on_the_cpu, monkeypatch, eq, sa, sb, dts):
    """The GPU's schedule of a compute-bound int8 einsum into a wider `out` (the inputs stay 8-bit) or numpy's own
    int8 result, run on the CPU executor: the schedule's core is the int8 tile's (its packs k fastest, zero-filled
    where K is odd), and the values are numpy's einsum in int64 cast to the result type (its wrap-around)."""
    import gettpy
    from gettpy.plan import cache

    seen = []
    real = cache.make_schedule
    monkeypatch.setattr(cache, "make_schedule", lambda *a, **k: seen.append(real(*a, **k)) or seen[-1])
    a = rng.integers(np.iinfo(dts[0]).min, np.iinfo(dts[0]).max, size=sa, dtype=dts[0], endpoint=True)
    b = rng.integers(np.iinfo(dts[1]).min, np.iinfo(dts[1]).max, size=sb, dtype=dts[1], endpoint=True)
    with np.errstate(over="ignore"):
        ref = np.einsum(eq, a.astype(np.int64), b.astype(np.int64)).astype(dts[2] or np.int8)
    if dts[2] is None:
        got = gettpy.einsum(eq, a, b)
    else:
        got = gettpy.einsum(eq, a, b, out=np.full(ref.shape, 77, dtype=dts[2]))
    assert got.dtype == ref.dtype and np.array_equal(got, ref)
    assert seen and all(s.problem.a.dtype in ("i8", "u8") and s.problem.b.dtype in ("i8", "u8") for s in seen)
    assert _core_spec(seen[-1]).int8  # (the GPU would run its core on the int8 tile)


def test_schedules_planned_for_the_int8_tile_run_on_it():
    """Every int8 GEMM the schedule plans for the int8 tile reaches the executor with layouts the int8 tile takes
    (both inputs k-major in vectors of at least INT8_MIN_KVEC), and every one planned for the SIMT kernel runs
    there: over both memory orders, the four transpositions and K that is odd, 2 mod 4 and whole vectors. (A
    mismatch would pack an input for a tile that then does not run: a wasted copy, never a wrong value.)"""
    import itertools

    from gettpy.plan.heuristic import int8_plan_tile
    from gettpy.plan.schedule import make_schedule
    from gettpy.plan.simt import exact_kernel_spec

    mismatches = []
    for eq in ("ik,kj->ij", "ki,kj->ij", "ik,jk->ij", "ki,jk->ij"):
        for m, n, k, order in itertools.product((300, 600, 1000, 2000, 4000), (300, 600, 1000, 2000),
                                                (250, 512, 1029, 1030, 1032, 4097), "CF"):
            p = dense_problem(eq, {"i": m, "j": n, "k": k}, "i8", order)
            s = make_schedule(dataclasses.replace(p, d=dataclasses.replace(p.d, dtype="i32")), sm_count=132)
            core, p = s.core, s.core.problem
            spec = exact_kernel_spec(core.layout_a, core.layout_b, None, core.layout_d,
                                     (core.kernel_a.dtype, core.kernel_b.dtype, None, p.d.dtype),
                                     (core.M, core.N, core.K, core.batch), sm_count=132)
            if (int8_plan_tile(core, 132) is not None) != spec.int8:
                mismatches.append((eq, m, n, k, order))
    assert not mismatches
