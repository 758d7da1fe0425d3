"""The planner's pure-Python choices for the GPU kernels, without NVRTC: tile heuristics (mma, simt, wgmma, TMA,
persistent, stream-K, narrow shapes), their cost models and register caps, the kernel spec's validation and the
TMA box geometry, each checked against expected values stated as data (the kernels themselves are compiled in
tests/compile/test_kernels_compile.py)."""
from __future__ import annotations

import math

import pytest
from harness import dense_problem, tccg_plan

from gettpy import ops
from gettpy.errors import KernelError
from gettpy.kernels import build as B
from gettpy.kernels.render import render, render_map
from gettpy.kernels.spec import KernelSpec, TileConfig
from gettpy.layouts.descriptor import build_dim_map
from gettpy.plan import ContractionProblem, TensorInfo, make_plan
from gettpy.plan.tiles import choose_tile, kernel_spec


def test_render_map_skips_wrap_and_div():
    dm = build_dim_map((4, 3), (3, 1))
    s = render_map(dm)
    assert s == "gett::Map<gett::Term<1LL, 4LL, 3LL, true>, gett::Term<4LL, 3LL, 1LL, false>>"


#: choose_tile's heuristic, as data: (id, (M, N, K), keyword arguments, the tile's fields that are decided)
CHOOSE_TILE = [
    # f16: narrow sides get a 32-wide (or 16-wide) tile 256 long
    ("narrow_n", (97344, 24, 312), {}, dict(bm=256, bn=32, threads=256)),
    ("narrow_m", (24, 97344, 312), {}, dict(bm=32, bn=256, threads=256)),
    ("narrow_n16", (97344, 16, 312), {}, dict(bn=16)),
    # compute-bound squares: mma.sync 128 x 128 x 64 / 3; on sm_90 warpgroup MMA on the big tile; a gathered
    # input keeps 8 warps and bk 32
    ("square_mma", (5184, 5184, 5184), dict(wgmma=False), dict(bm=128, bn=128, bk=64, stages=3, wm=64, wn=64)),
    ("square_wgmma", (5184, 5184, 5184), {}, dict(wgmma=True, bm=256, bn=128, bk=64, stages=4, threads=512)),
    ("square_gathered", (5184, 5184, 5184), dict(vec_a=1), dict(bm=128, bn=128, bk=32, stages=4, wgmma=False)),
    ("k_ge_64_bk64", (92352, 296, 312), dict(wgmma=False), dict(bk=64)),
    # memory-bound on sm_90: the small wgmma tile, 256 rows when tall and skinny, not when N is under one tile
    ("mem_wgmma", (296, 92352, 312), {}, dict(wgmma=True, bm=128, bn=128, stages=3)),
    ("mem_wgmma_tall", (92352, 312, 296), {}, dict(wgmma=True, bm=256, bn=128, stages=3)),
    ("mem_wgmma_n72", (373248, 72, 72), {}, dict(wgmma=True, bm=128, bn=128, stages=3)),
    # under a wave of 128 x 128 but a long K: 128 x 64 wgmma, 8 stages; a short K keeps the tile filling the machine
    ("long_k_n72", (5184, 72, 5184), {}, dict(wgmma=True, bm=128, bn=64, bk=64, stages=8)),
    ("mid_k_n72", (5184, 72, 512), {}, dict(wgmma=False, bm=64, bn=64)),
    ("tf32_mma_sync", (5184, 5184, 5184), dict(dtype="f32", compute="tf32"), dict(wgmma=False)),
    ("k48_wide", (92352, 296, 48), {}, dict(wgmma=False, bk=32)),
    # a narrow tile over K = 48: one k-tile of 48, 2 stages (not for scalar reads: 48 k per copy row would exceed
    # the loader's 32 copies per thread; not for K = 32 or 72; not for tf32)
    ("narrow_k48", (2359296, 24, 48), {}, dict(bm=256, bn=32, bk=48, stages=2, wgmma=False)),
    ("narrow_k32", (2359296, 24, 32), {}, dict(bk=32)),
    ("narrow_k72", (2359296, 24, 72), {}, dict(bk=32)),
    ("narrow_k48_scalar", (2359296, 24, 48), dict(vec_a=1), dict(bk=32)),
    ("narrow_k48_tf32", (2000, 24, 48), dict(dtype="f32", compute="tf32"), dict(bk=32)),
    # f32 with a narrow side of 24: tiles exactly 24 wide, 3 rows (or columns) per thread; a long K on 24 x 128
    # (4 stages), a short one on 24 x 256; narrow sides of 16 and 32 keep their tiles, and so does f16
    ("f32_narrow_m", (24, 97344, 312), dict(dtype="f32"),
     dict(bm=24, bn=128, bk=16, stages=4, tm=3, tn=4, threads=256)),
    ("f32_narrow_m_short_k", (24, 2359296, 32), dict(dtype="f32"), dict(bm=24, bn=256, stages=3, tm=3, tn=8,
                                                                        threads=256)),
    ("f32_narrow_n", (373248, 24, 72), dict(dtype="f32"), dict(bm=256, bn=24, tm=8, tn=3)),
    ("f16_narrow_m24", (24, 97344, 312), {}, dict(bm=32)),
    ("f32_narrow_m32", (32, 97344, 312), dict(dtype="f32"), dict(bm=32)),
    ("f32_narrow_m16", (16, 97344, 312), dict(dtype="f32"), dict(bm=16)),
    # f32 by shape: short K (ccsd_t) on 64 x 64, 3 k-tiles of 8 and 4 stages (every load at once); K = 72 stays on
    # bk 16 (80 columns, 11% zero-fill); f64 keeps bk 8 on a short K
    ("f32_short_k", (6144, 6144, 24), dict(dtype="f32"), dict(bm=64, bn=64, bk=8, stages=4, tm=4, tn=4)),
    ("f32_k72", (6144, 6144, 72), dict(dtype="f32"), dict(bm=128, bn=128, bk=16)),
    ("f64_short_k", (6144, 6144, 24), dict(dtype="f64"), dict(bk=8)),
    # f32, M or N = 72 between tile sizes: one row of 72-wide tiles
    ("f32_m72", (72, 373248, 72), dict(dtype="f32"), dict(bm=72, bn=128, bk=8, tm=9, tn=4, threads=256)),
    ("f32_n72", (373248, 72, 72), dict(dtype="f32"), dict(bm=128, bn=72, tm=4, tn=9, threads=256)),
    # a middle K and 41 such tiles: 64 x 64; a long K: 128 x 72 (the schedule's split-K fills the machine); a wave
    # of them (batch 8): the split core's tile
    ("f32_n72_mid_k", (5184, 72, 512), dict(dtype="f32"), dict(bn=64)),
    ("f32_n72_long_k", (5184, 72, 5184), dict(dtype="f32"), dict(bm=128, bn=72, bk=16, tm=4, tn=9)),
    ("f32_n72_batch", (5184, 72, 648), dict(dtype="f32", batch=8), dict(bn=72)),
]


@pytest.mark.parametrize("mnk,kw,want", [pytest.param(m, k, w, id=i) for i, m, k, w in CHOOSE_TILE])
def test_choose_tile(mnk, kw, want):
    """The heuristic tile of a GEMM shape on an sm_90 target (dtype f16 unless given)."""
    t = choose_tile(*mnk, **{"dtype": "f16", **kw})
    assert {f: getattr(t, f) for f in want} == want


def test_choose_tile_bounds():
    """Choices stated as bounds: f32 squares without wgmma stay on simt tiles (sm_90's f64 tensor cores take them
    in the schedule), f64 with a short K is wider than 64, the mma paths never take the 72-wide f32 tile, and a
    small GEMM still makes at least 9 tiles."""
    assert choose_tile(5184, 5184, 5184, dtype="f32", wgmma=False).tm > 0
    assert choose_tile(6144, 6144, 24, dtype="f64").bm > 64
    assert choose_tile(72, 373248, 72, dtype="f16").bm != 72
    small = choose_tile(300, 300, 64, dtype="f16")
    assert math.ceil(300 / small.bm) * math.ceil(300 / small.bn) >= 9


def test_f32_tiles_least_padded_work():
    """f32 (simt): the tile with the least padded work, smaller tiles charged SIMT_TILE_COST: a side of
    296 or 312 goes on 64 (320 rows, not 384), 5136 / 5184 squares keep 128 x 128."""
    from gettpy.plan.tiles import SIMT_TILE_COST

    def work(M, N, t):
        return (math.ceil(M / t.bm) * t.bm * math.ceil(N / t.bn) * t.bn
                * SIMT_TILE_COST[(t.bm < 128) + (t.bn < 128)])

    for (M, N, K), want in [((296, 92352, 312), (64, 128)), ((92352, 312, 296), (128, 64)),
                            ((312, 92352, 296), (64, 128)), ((5136, 5120, 5136), (128, 128)),
                            ((5184, 5184, 5184), (128, 128))]:
        t = choose_tile(M, N, K, dtype="f32", wgmma=False)  # (sm_90: the squares on the f64 tensor cores)
        assert (t.bm, t.bn) == want and t.tm * t.tn * t.threads == t.bm * t.bn
        for bm, bn in [(128, 128), (128, 64), (64, 128), (64, 64)]:  # (the enumeration, independently)
            assert work(M, N, t) <= work(M, N, TileConfig(bm, bn, 16, 3, tm=bm // 16, tn=bn // 16))
    assert (choose_tile(296, 92352, 312, dtype="f64").bm, choose_tile(296, 92352, 312).bm) == (128, 128)


@pytest.mark.parametrize("ext,sm,want", [
    ((312, 24, 296, 312), 132, (24, 704)),  # TCCG #2: 92352 wide, 132 tiles of 704 (352 threads)
    ((400, 24, 500, 312), 132, (24, 768)),  # 200000 wide: two waves (the one-wave tile would pass 384 threads)
    ((128, 24, 132, 256), 132, (24, 128)),  # 16896 = 128 x 132 wide: the shortest side that takes the rule
    ((127, 24, 132, 256), 132, (32, 128)),  # one column shorter: the padded 32 x 128 x 32 tile
    ((312, 24, 296, 312), 78, (24, 640)),   # fewer SMs: 92352 / 78 over 768, so two waves of 640
])
def test_narrow_simt_wave(ext, sm, want):
    """f32 #2's family (abc-dca-bd: 24 x (a c) x d, the wide input k-major): one wave of 24-row tiles W wide
    (W the least multiple of 64 covering the wide side in `sm` tiles, or two waves of at most 768), each
    of two rows of 12 x 4 thread tiles; a wide side under 128 x sm the padded 32 x 128 x 32 tile of 4 x 4."""
    import math

    from gettpy.plan.tiles import kernel_spec

    plan = tccg_plan("abc-dca-bd", ext, "f32")
    t = kernel_spec(plan, False, sm_count=sm).tile
    assert (plan.M, t.bm, t.bn) == (24, *want)
    wide = ext[0] * ext[2]
    if t.bm == 24:
        assert (t.bk, t.stages, t.tm, t.tn, t.threads) == (16, 3, 12, 4, t.bn // 2)
        assert t.threads % 32 == 0 and t.threads <= 384
        waves = math.ceil(wide / (sm * 768))  # (768 columns: two rows of 192 threads)
        assert math.ceil(wide / t.bn) <= sm * waves < math.ceil(wide / (t.bn - 64))  # (64 narrower: too many tiles)
    else:
        assert (t.bk, t.stages, t.tm, t.tn) == (32, 3, 4, 4)


@pytest.mark.parametrize("bk,threads_ok", [(64, False), (32, True)])
def test_spec_refuses_loads_past_the_predicate_mask(bk, threads_ok):
    """A caller's tile whose loader would copy more than 32 vectors a thread (single f16 elements of an odd
    row-major A, 128 threads) is refused by KernelSpec, naming the operand, before NVRTC meets the static_assert."""
    p = tccg_plan("abcd-eb-aecd", (61, 77, 75, 67, 69), "f16", order="C")
    tile = TileConfig(128, 128, bk, 3, wm=64, wn=64)
    loads = -(-128 * bk // 128)  # (vectors of one element over 128 threads)
    if threads_ok:
        assert loads <= 32
        kernel_spec(p, False, tile=tile)
    else:
        assert loads > 32
        with pytest.raises(KernelError, match=r"operand (A|B): tile .* more than 32 loads for each of 128 threads"):
            kernel_spec(p, False, tile=tile)


def test_spec_validation():

    with pytest.raises(KernelError):
        TileConfig(128, 128, 32, stages=1, wm=64, wn=32)
    with pytest.raises(KernelError):
        TileConfig(128, 128, 24, wm=64, wn=32)  # bk % 16
    with pytest.raises(KernelError, match="wgmma"):
        TileConfig(128, 128, 32, wm=64, wn=128, wgmma=True)  # bk 64
    with pytest.raises(KernelError, match="wgmma"):
        TileConfig(96, 128, 64, wm=64, wn=128, wgmma=True)  # bm % 64
    with pytest.raises(KernelError, match="wgmma"):
        TileConfig(128, 128, 64, wm=64, wn=64, wgmma=True)  # wn == bn
    plan16 = tccg_plan("ab-ac-cb", (400, 300, 200), "f16")
    wg = TileConfig(128, 128, 64, 3, wm=64, wn=128, wgmma=True)
    with pytest.raises(KernelError, match="sm_90"):  # wgmma kernels are sm_90a code
        B.build(kernel_spec(plan16, False, tile=wg), "sm_80")
    with pytest.raises(KernelError, match="mma tile"):  # f32 inputs (no tf32) cannot use a tensor-core tile
        kernel_spec(tccg_plan("ab-ac-cb", (400, 300, 200), "f32"), False, tile=wg)
    spec = kernel_spec(tccg_plan("ab-ac-cb", (40, 24, 8), "f32"), False)
    assert isinstance(spec, KernelSpec) and hash(spec) == hash(kernel_spec(tccg_plan("ab-ac-cb", (40, 24, 8),
                                                                                     "f32"), False))


def test_persistent_heuristic():
    """Persistent where measured faster: write-bound one-k-tile mma.sync tiles (ccsd_t), the tall wgmma
    tile (#16), #2's narrow tile over its k-major input, the narrow mma.sync tiles with A's panel resident
    (#6) and #12's 256 x 160 TMA tile with f16 D (chunked epilogue); not the 128x128 wgmma tiles, the simt
    tiles, #12 with f32 D."""
    ext = (24, 16, 16, 24, 16, 16, 24)
    assert kernel_spec(tccg_plan("abcdef-degb-gfac", ext, "f16"), False).tile.persistent
    assert kernel_spec(tccg_plan("abcdef-degc-gfab", ext, "f16"), False).tile.persistent
    assert not kernel_spec(tccg_plan("abcdef-degc-gfab", ext, "f32"), False).tile.persistent
    assert kernel_spec(tccg_plan("abc-ad-bdc", (312, 312, 296, 296), "f16"), False).tile.persistent  # #16
    spec = kernel_spec(tccg_plan("abc-ad-bdc", (312, 312, 296, 296), "f16", out="f32"), False)  # (f32 D: the
    assert not spec.tile.persistent and spec.tile.bm == 256  # epilogue tile would not fit beside the pipeline)
    assert not kernel_spec(tccg_plan("abc-acd-db", (312, 296, 296, 312), "f16"), False).tile.persistent  # #15
    t = kernel_spec(tccg_plan("abcde-efbad-cf", (48, 32, 24, 32, 48, 32), "f16"), False).tile  # (#6)
    assert t.persistent and t.resident_a
    assert kernel_spec(tccg_plan("ab-ac-cb", (5136, 5120, 5136), "f16"), False).tile.persistent
    assert not kernel_spec(tccg_plan("ab-ac-cb", (5136, 5120, 5136), "f16", out="f32"), False).tile.persistent
    assert not kernel_spec(tccg_plan("ab-ac-cb", (64, 64, 0), "f16", with_c=True), True).tile.persistent  # (K = 0)


def test_tma_tile_on_straddled_slabs():
    """The heuristic's TMA tile where a split map's slabs are straddled by its tiles: C[a, c, b] = A[d, c, a] B[d, b]
    with a = 72 (the big input's n = (a, c), two stride terms; tiles of 160 rows in clusters, halves of 80) takes
    the 256 x 160 TMA tile with boxes of gcd(72, 80) = 8 rows (measured faster than the cp.async tile on the H100);
    a = 76 (gcd 4: not whole swizzle atoms) keeps the cp.async tile, and so does
    the same map on A (measured slower there), which a forced TMA tile reads in boxes of 8 rows."""
    spec = kernel_spec(tccg_plan("acb-dca-db", (72, 5120, 72, 5184)), False)
    t = spec.tile
    assert (t.bm, t.bn, t.tma, t.cluster) == (256, 160, True, 2) and spec.b.kmajor and spec.tma_rows == (0, 8)
    spec = kernel_spec(tccg_plan("acb-dca-db", (76, 5120, 72, 5184)), False)
    assert not spec.tile.tma and (spec.tile.bm, spec.tile.bn) == (256, 128)
    spec = kernel_spec(tccg_plan("bac-dca-bd", (72, 5120, 72, 5184)), False)  # (straddled on A: ran slower)
    assert spec.a.kmajor and not spec.tile.tma and (spec.tile.bm, spec.tile.bn) == (256, 128)
    forced = TileConfig(128, 240, 64, 4, wm=64, wn=240, wgmma=True, ws=True, tma=True)
    assert kernel_spec(tccg_plan("bac-dca-bd", (72, 5120, 72, 5184)), False, tile=forced).tma_rows == (8, 0)


@pytest.mark.parametrize("modes_a,strides_a,batch,want", [
    (("k", "m"), (1, 264), 1, ((264, 200), (528,), (64, 128))),  # k-major: k innermost, box 64 x rows
    (("m", "k"), (1, 200), 1, ((200, 264), (400,), (64, 64))),  # mn-major: one 64 x 64 box per column atom
    (("k", "m", "b"), (1, 264, 264 * 200), 3, ((264, 200, 3), (528, 105600), (64, 128, 1))),  # batched: rank 3
    (("k", "m"), (1, 260), 1, None),  # a row stride of 520 bytes: not a multiple of 16
    (("k", "m"), (2, 528), 1, None),  # the innermost dimension is not stride 1
])
def test_tma_geometry(modes_a, strides_a, batch, want):
    """The tensor map of an operand (dims innermost first, byte strides, box), or none where TMA cannot
    load it; every dim and stride checked against the operand's own layout (1-byte operands:
    test_tma_geometry_int8)."""
    from gettpy.kernels.spec import OperandSpec
    from gettpy.kernels.tma import geometry

    ext = {"m": 200, "k": 264, "b": batch}
    dims = {m: build_dim_map([ext[m]], [s]) for m, s in zip(modes_a, strides_a, strict=True)}
    b = dims.get("b", build_dim_map([], []))
    op = OperandSpec("f16", dims["m"], dims["k"], b, 8, modes_a[0] == "k")
    g = geometry(op, 128, 64, batch)
    if want is None:
        assert g is None
    else:
        assert (g.dims, g.strides, g.box) == want and g.rank == len(want[0])


@pytest.mark.parametrize("modes_a,strides_a,bk,want", [
    (("k", "m"), (1, 272), 128, ((272, 200), (272,), (128, 128))),  # k-major: box 128 one-byte values x rows
    (("k", "m"), (1, 272), 64, None),  # a k-tile that is not one 128-byte swizzle row
    (("k", "m"), (1, 264), 128, None),  # rows of 264 bytes: not a multiple of 16
    (("m", "k"), (1, 200), 128, None),  # mn-major: the int8 wgmma reads k-major operands only
])
def test_tma_geometry_int8(modes_a, strides_a, bk, want):
    """The tensor map of a 1-byte operand: k-major only, boxes of 128 values (one swizzle row) by the tile's rows."""
    from gettpy.kernels.spec import OperandSpec
    from gettpy.kernels.tma import geometry

    ext = {"m": 200, "k": strides_a[1] if modes_a[0] == "k" else 264}
    dims = {m: build_dim_map([ext[m]], [s]) for m, s in zip(modes_a, strides_a, strict=True)}
    op = OperandSpec("i8", dims["m"], dims["k"], build_dim_map([], []), 16, modes_a[0] == "k")
    g = geometry(op, 128, bk, 1)
    if want is None:
        assert g is None
    else:
        assert (g.dims, g.strides, g.box, g.dtype) == (*want, "i8")


def test_stream_k_heuristic():
    """Stream-K where a compute-bound simt grid ends in a partial wave: #20 f32 at TCCG's size on a target
    without the f64 tensor cores (3321 tiles of 128 x 64 on 132 SMs x 3, 8.4 waves) deals its last
    3321 % 396 + 396 tiles out to 396 CTAs; tensor-core tiles, and simt shapes whose waves are nearly full or
    whose K is short (#15: 20 k-tiles), keep one CTA per tile."""
    import math

    from gettpy.plan.tiles import SK_MIN_KTILES, SK_WAVE_FILL

    def spec_of(con, ext, dt):
        return kernel_spec(tccg_plan(con, ext, dt, order="F"), False, wgmma=False)

    s = spec_of("abcd-aebf-dfce", (72,) * 6, "f32")
    t = s.tile
    assert (t.bm, t.bn, t.bk, t.stages, t.tm, t.tn, t.min_blocks) == (128, 64, 16, 4, 8, 8, 3) and t.threads == 128
    nt = 41 * 81
    assert t.sk_ctas == 132 * 3 and s.sk_tiles == nt % 396 + 396 and s.grid == nt - s.sk_tiles + 396
    assert s.workspace_bytes == s.sk_flag_bytes + 396 * 2 * 128 * 64 * 4 and s.sk_flag_bytes >= 4 * s.sk_tiles
    for con, ext, dt in (("abcd-aebf-dfce", (72,) * 6, "f16"), ("abc-acd-db", (312, 296, 296, 312), "f32")):
        s = spec_of(con, ext, dt)
        nt, slots = s.tiles * s.batch, 132 * s.tile.min_blocks
        assert s.tile.sk_ctas == 0 and s.grid == nt
        fill = nt / (math.ceil(nt / slots) * slots)
        assert s.tile.mma or fill >= SK_WAVE_FILL or math.ceil(s.K / s.tile.bk) < SK_MIN_KTILES


@pytest.mark.parametrize("nt,g,kt", [(1681, 264, 324), (361, 264, 324), (7, 5, 3), (6, 50, 5), (40, 7, 63), (9, 9, 1),
                                     (100, 33, 2)])
def test_stream_k_shares(nt, g, kt):
    """gett.cuh's stream-K arithmetic, enumerated: every k-iteration of the stream-K tiles belongs to one
    CTA (sk_begin), sk_cta_of finds it, each cut tile's contributors are c_lo..c_hi, and the two slots per
    CTA (its share starting inside a tile, its share ending inside one) are never used by two tiles."""
    from gettpy.kernels.spec import KernelSpec, TileConfig

    spec = kernel_spec(tccg_plan("ab-ac-cb", (64 * nt, 64, kt * 8), "f32", order="F"), False,
                       tile=TileConfig(64, 64, 8, 2, tm=4, tn=4, sk_ctas=g))
    assert isinstance(spec, KernelSpec)
    assert spec.sk_tiles == min(nt, nt % g + g)
    assert spec.sk_ctas == min(g, spec.sk_tiles * kt)  # (at most one CTA per k-iteration: each has a share)
    sk = spec.sk_tiles
    iters = sk * kt
    g = spec.sk_ctas
    begin = [c * iters // g for c in range(g + 1)]
    assert all(begin[c] < begin[c + 1] for c in range(g))
    owner = [None] * iters
    for c in range(g):
        for it in range(begin[c], begin[c + 1]):
            owner[it] = c
    assert None not in owner
    cta_of = lambda it: ((it + 1) * g - 1) // iters  # noqa: E731 (gett.cuh's sk_cta_of)
    assert all(cta_of(it) == owner[it] for it in range(iters))
    used = {}
    for t in range(sk):
        t0 = t * kt
        c_lo, c_hi = cta_of(t0), cta_of(t0 + kt - 1)
        assert {owner[it] for it in range(t0, t0 + kt)} == set(range(c_lo, c_hi + 1))
        if c_lo == c_hi:
            continue  # (a whole tile: no slot)
        for c in range(c_lo, c_hi + 1):
            slot = c * 2 + (0 if begin[c] > t0 else 1)  # (gett.cuh's sk_slot)
            assert used.setdefault(slot, t) == t, (slot, t)


def test_narrow_copies_heuristic():
    """The heuristic's narrow cp.async tiles (a side of 32 or less: TCCG #1-#8) copy with a 128-byte L2 prefetch,
    and where the mma.sync kernel can keep A's panel (M <= bm, A mn-major) they keep it, persistent;
    simt tiles, wider tiles and TMA / wgmma tiles are left as they were (as measured on the H100)."""
    from harness import packed_problem

    from gettpy.plan.schedule import make_schedule
    from gettpy.plan.tiles import NARROW_PREFETCH
    from tccg.suite import SUITE

    got = {}
    for case in SUITE:
        for dt in ("f16", "f32"):
            t = kernel_spec(make_schedule(packed_problem(case.contraction, case.extents, dt)).core, False).tile
            got[case.num, dt] = (t.l2_prefetch, t.resident_a, t.persistent)
            assert not t.frag_op_b  # (no op on B here)
            if t.l2_prefetch or t.resident_a:
                assert t.l2_prefetch == NARROW_PREFETCH and min(t.bm, t.bn) <= 32 and not t.tma and not t.wgmma
            elif t.rows:  # (#2 f16: the row-stream tile of _row_stream, no cp.async copies)
                assert (case.num, dt) == (2, "f16")
            elif not (t.wgmma or t.tma):
                assert min(t.bm, t.bn) > 32, (case.num, dt, t)
    assert {n for (n, dt), v in got.items() if v[1]} == {4, 5, 6, 8}
    assert all(got[n, "f16"] == (128, True, True) for n in (4, 5, 6, 8)) and got[2, "f16"] == (0, False, True)
    assert all(got[n, "f32"][:2] == (128, False) for n in range(1, 9)) and got[1, "f16"][:2] == (128, False)
    assert got[12, "f16"] == (0, False, True) and got[20, "f32"] == (0, False, False)
    # (an op on A: applied to the panel once; an op on B: to B's fragments, on the mma.sync tiles only)
    plan = tccg_plan("abc-bd-dca", (312, 24, 296, 312), "f16", op_a=ops.leaky_relu(0.1))  # (#2, op on bd)
    assert kernel_spec(plan, False).op_a
    t = kernel_spec(plan, False).tile
    assert t.l2_prefetch == NARROW_PREFETCH and t.resident_a and t.persistent and not t.frag_op_b
    for dt, frag in (("f16", True), ("f32", False)):
        spec = kernel_spec(tccg_plan("abc-dca-bd", (312, 24, 296, 312), dt, op_a=ops.leaky_relu(0.1)), False)
        assert spec.op_b and spec.tile.frag_op_b == frag and spec.tile.l2_prefetch == NARROW_PREFETCH


def test_wgmma_serialisation_is_reported():
    """ptxas's note C7515 (the wgmmas serialised, each waiting for the one before) is read from the log into
    PtxasReport.wgmma_serial; a log without it leaves the flag off."""
    note = ("ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized due to "
            "non wgmma instructions defining accumulator registers of a wgmma between start and end of the pipeline "
            "stage in the function 'gett'\n")
    used = "ptxas info    : Used 168 registers, used 2 barriers\n"
    r = B.parse_ptxas(note + used)
    assert r.wgmma_serial and r.registers == 168
    assert not B.parse_ptxas(used).wgmma_serial and not B.parse_ptxas("").wgmma_serial


@pytest.mark.parametrize("dtype,compute,sa,sb", [
    ("f32", "tf32", (1, 2000), (1, 24)),  # tf32: m/n-major inputs are read element by element
    ("f16", "f32", (2, 4000), (3, 72)),  # gathered inputs (no unit stride)
    ("f16", "f32", (48, 1), (48, 1)),  # k-major vectors: one k-tile of 48
])
def test_narrow_k48_tiles(dtype, compute, sa, sb):
    """The heuristic tile of a narrow GEMM over K = 48 for every way its inputs are read: the bk = K tile only
    where both are read in vectors (tests/compile/test_kernels_compile.py compiles them)."""
    ext = {"m": 2000, "n": 24, "k": 48}
    p = ContractionProblem(TensorInfo("A", ("m", "k"), sa, dtype), TensorInfo("B", ("n", "k"), sb, dtype), None,
                           TensorInfo("D", ("m", "n"), (1, 2000), "f32" if compute == "tf32" else dtype),
                           tuple(sorted(ext.items())), compute)
    spec = kernel_spec(make_plan(p), False)
    assert spec.tile.bk == (48 if sa == (48, 1) else 32)


def test_f32_register_caps():
    """Heuristic f32 simt tiles leave registers for more CTAs per SM: 64 x 64 for 4 (ccsd_t), 128 x 64 and
    64 x 128 for 3, 128 x 128 for 2 when both inputs are read mn-major, else 128 x 64 for 2; compute-bound
    ones 128 x 64 of 128 threads of 8 x 8 for 3, whichever way the inputs are read; f64 and the mma paths
    keep 1. (The compute-bound f32 and f64 shapes on a target without the f64 tensor cores, which take them on
    sm_90.)"""
    from gettpy.plan.tiles import kernel_spec

    def tile(con, ext, dt="f32", wgmma=True):
        return kernel_spec(tccg_plan(con, ext, dt), False, wgmma=wgmma).tile

    t = tile("abcdef-degc-gfab", (24, 16, 16, 24, 16, 16, 24))
    assert (t.bm, t.bn, t.min_blocks) == (64, 64, 4)
    t = tile("abc-ad-bdc", (312, 312, 296, 296), wgmma=False)  # (sm_90: the f64 tensor cores)
    assert (t.bm, t.bn, t.min_blocks, t.tm) == (128, 64, 3, 8)
    t = tile("ab-ac-bc", (4096, 2048, 34))  # (both inputs mn-major, memory-bound)
    assert (t.bm, t.bn, t.min_blocks) == (128, 128, 2)
    t = tile("abcd-aebf-dfce", (72,) * 6, wgmma=False)  # (both inputs mn-major, compute-bound: 8 x 8 a thread)
    assert (t.bm, t.bn, t.tm, t.tn, t.min_blocks) == (128, 64, 8, 8, 3)
    assert tile("abcd-aebf-dfce", (72,) * 6).tm == 0  # (sm_90: the f64 tensor cores)
    spec = kernel_spec(tccg_plan("ab-ac-cb", (5136, 5120, 5136), "f32"), False, wgmma=False)  # (one input k-major)
    assert (spec.a.kmajor or spec.b.kmajor) and (spec.tile.bm, spec.tile.bn, spec.tile.tn, spec.tile.min_blocks,
                                                 spec.tile.threads) == (128, 64, 8, 3, 128)
    spec = kernel_spec(tccg_plan("ab-ac-cb", (513, 4096, 36), "f32"), False, wgmma=False)  # (memory-bound)
    assert spec.a.kmajor and (spec.tile.bm, spec.tile.bn, spec.tile.tn, spec.tile.min_blocks) == (128, 64, 4, 2)
    assert tile("ab-ac-cb", (513, 511, 257), "f64", wgmma=False).min_blocks == 1
    assert not tile("ab-ac-cb", (513, 511, 257), "f64").mma  # (odd rows, 8-byte copies: not the f64 tensor cores)
    assert tile("ab-ac-cb", (512, 512, 256), "f64").mma  # (16-byte rows on sm_90: the f64 tensor cores)
    assert tile("abcd-aebf-dfce", (72,) * 6, "f16").min_blocks == 1


def test_kmajor_lines_on_narrow_tiles():
    """#2 (its wide input read k-major, on the kernel's M: plan/partition.py narrow_kmajor_wide): without wgmma
    the narrow mma.sync tile reads 128-byte lines, bk 64 / 3 stages; on sm_90 the persistent warp-specialised
    wgmma tile of 256 x 32 x 64 / 4 with the narrow tiles' 128-byte prefetch (plan/tiles.py _narrow_ws).
    #1 (wide input mn-major) and a short K keep bk 32. The f32 narrow simt tile of #2 (24 x 128 x 16,
    3 x 4 threads) becomes one wave of 24 x 704 x 16 / 3 tiles of 12 x 4 threads (plan/tiles.py
    _narrow_simt_wave); #1's and a short K's stay."""
    from gettpy.plan.tiles import kernel_spec

    p2 = tccg_plan("abc-dca-bd", (312, 24, 296, 312))
    t2 = kernel_spec(p2, False, wgmma=False).tile
    assert (p2.M, p2.N) == (92352, 24) and (t2.bm, t2.bn, t2.bk, t2.stages, t2.wgmma, t2.persistent) == (
        256, 32, 64, 3, False, True)
    w2 = kernel_spec(p2, False).tile  # (its wide input's rows are whole: the row-stream tile of _row_stream)
    assert w2 == TileConfig(64, 24, 16, 4, wm=16, wn=24, persistent=True, rows=4, rows_run=8)
    # (k two stride terms, d and e with a between them: no whole rows, so the warp-specialised wgmma tile)
    w3 = kernel_spec(tccg_plan("ab-dae-bde", (33792, 24, 16, 20)), False).tile
    assert w3 == TileConfig(256, 32, 64, 4, wm=64, wn=32, wgmma=True, ws=True, persistent=True, l2_prefetch=128)
    t1 = kernel_spec(tccg_plan("abc-bda-dc", (312, 312, 24, 312)), False).tile
    assert (t1.bm, t1.bn, t1.bk, t1.persistent) == (32, 256, 32, False)
    t5 = kernel_spec(tccg_plan("abcd-ebad-ce", (72, 72, 24, 72, 72)), False).tile  # (K = 72)
    assert t5.bk == 32
    f2 = kernel_spec(tccg_plan("abc-dca-bd", (312, 24, 296, 312), "f32"), False).tile
    assert (f2.bm, f2.bn, f2.bk, f2.stages, f2.tm, f2.tn, f2.mma, f2.l2_prefetch) == (24, 704, 16, 3, 12, 4, False,
                                                                                      128)
    f1 = kernel_spec(tccg_plan("abc-bda-dc", (312, 312, 24, 312), "f32"), False).tile
    assert (f1.bm, f1.bn, f1.bk, f1.tm, f1.tn) == (24, 128, 16, 3, 4)
    f5 = kernel_spec(tccg_plan("abcd-ebad-ce", (72, 72, 24, 72, 72), "f32"), False).tile
    assert (f5.bm, f5.bn, f5.bk) == (24, 256, 16)


def test_d_run_tiles():
    """ccsd_t (#32, #31): D's run of 24 continues in the other GEMM dimension: the tile is cut to 96 along
    it (mma tiles) and the epilogue walks run by run; #33 (D contiguous over a whole tile) keeps 128."""
    ext = (24, 16, 16, 24, 16, 16, 24)
    for con, cont in (("abcdef-degb-gfac", 16), ("abcdef-dega-gfbc", 128)):
        spec = kernel_spec(tccg_plan(con, ext, "f16"), False)
        assert (spec.d.run, spec.d.cont) == (24, cont) and not spec.d.ncontig
        assert spec.tile.bm == 96 and spec.tile.bm % spec.d.run == 0, spec.tile
        assert (spec.tile.wm, spec.tile.wn, spec.tile.threads) == (48, 64, 128)  # four warps of 48 x 64
        spec = kernel_spec(tccg_plan(con, ext, "f32"), False)  # simt tiles are not cut (short K: 64x64)
        assert spec.tile.bm == 64 and spec.d.run == 0
    spec = kernel_spec(tccg_plan("abcdef-degc-gfab", ext, "f16"), False)
    assert spec.d.run == 0 and spec.tile.bm == 128


def test_tma_heuristic():
    """The compute-bound wgmma tile becomes a TMA-fed warp-specialised tile where both inputs are plain
    matrices without an op (#12); not with a relu on A (no in-kernel transform there), not for a layout of
    several stride terms per dimension (#20 in place), not for memory-bound shapes. Its shape: #12's
    M = 5120 makes 20 rows of 256, which pair up into clusters of two (B multicast), and with N = 5136
    33 columns of 160: 660 tiles, 5 waves of 132, walked by persistent CTAs with a chunked epilogue (f16 D, no
    C); M = N = 5184 (#20-#30 as packed) 41 rows of 128 (no clusters) and 22 columns of 240: 902 CTAs, 6.8
    waves (128 x 256: 861, 6.5 waves)."""
    from gettpy.plan.tiles import TMA_LOAD_WEIGHT, _tma_cost

    spec = kernel_spec(tccg_plan("ab-ac-cb", (5136, 5120, 5136), "f16"), False)
    assert spec.tile.tma and spec.tile.ws and (spec.tile.bm, spec.tile.bn, spec.tile.threads) == (256, 160, 384)
    assert spec.M == 5120 and spec.tile.cluster == 2 and spec.grid == 20 * 33
    # (persistent, each warp's rows staged 160 columns at a time in the last stage: f16 D, no C; not for f32 D or C)
    assert spec.tile.persistent and spec.tile.chunked and spec.epi_cols == 160 and not spec.direct_d
    assert spec.tile.group_m == 4
    assert "EPI_CHUNK = true" in render(spec)[0]
    for out, with_c in (("f32", False), ("f16", True)):
        s = kernel_spec(tccg_plan("ab-ac-cb", (5136, 5120, 5136), "f16", out=out, with_c=with_c), with_c)
        assert (s.tile.bm, s.tile.bn, s.tile.persistent, s.tile.chunked) == (256, 160, False, False)
    spec = kernel_spec(tccg_plan("ab-ac-cb", (5136, 5184, 5136), "f16"), False)
    assert spec.tile.tma and spec.M == 5184
    spec = kernel_spec(tccg_plan("ab-ac-cb", (5184, 5184, 5184), "f16"), False)
    assert (spec.tile.bm, spec.tile.bn, spec.tile.cluster, spec.grid) == (128, 240, 1, 41 * 22)
    # (the cost by hand: waves x (bm bn + w (bm + bn)))
    w = TMA_LOAD_WEIGHT
    assert _tma_cost(5184, 5184, 1, 128, 240, 1, 132) == 7 * (128 * 240 + w * 368)
    assert _tma_cost(5120, 5136, 1, 256, 160, 2, 132) == 5 * (256 * 160 + w * 416)
    assert _tma_cost(5136, 5136, 1, 256, 160, 2, 132) == 6 * (256 * 160 + w * 416)  # (21 rows -> 22)
    spec = kernel_spec(tccg_plan("ab-ac-cb", (5136, 5120, 5136), "f16", op_a=ops.relu), False)
    assert not spec.tile.ws and (spec.tile.bm, spec.tile.bn) == (256, 128)
    assert not kernel_spec(tccg_plan("abcd-aebf-dfce", (72,) * 6, "f16"), False).tile.ws
    assert not kernel_spec(tccg_plan("abc-acd-db", (312, 296, 296, 312), "f16"), False).tile.ws


def test_serpentine_rules():
    """Serpentine k-walks (TileConfig.serpentine) are for persistent warp-specialised tiles and K > 0; the kernel
    gets the flag in its Cfg; the heuristic's chunked tile (#12 f16) takes them, its
    one-tile-per-CTA tiles (#12 f16 -> f32, #20) cannot."""
    import dataclasses


    serp = kernel_spec(tccg_plan("ab-ac-cb", (5136, 5120, 5136), "f16"), False)
    assert serp.tile.serpentine and serp.tile.chunked and "SERP = true," in render(serp)[0]
    spec = dataclasses.replace(serp, tile=dataclasses.replace(serp.tile, serpentine=False))
    assert "SERP = false," in render(spec)[0]
    for other in (kernel_spec(tccg_plan("ab-ac-cb", (5136, 5120, 5136), "f16", out="f32"), False),
                  kernel_spec(tccg_plan("ab-ac-cb", (5184, 5184, 5184), "f16"), False)):
        assert other.tile.tma and not other.tile.persistent and not other.tile.serpentine
    for bad in (dict(persistent=False, chunked=False), dict(ws=False, tma=False, chunked=False, cluster=1)):
        with pytest.raises(KernelError, match="serpentine"):
            dataclasses.replace(spec.tile, serpentine=True, **bad)
    with pytest.raises(KernelError, match="serpentine"):
        kernel_spec(tccg_plan("ab-ac-cb", (5136, 5120, 0), "f16"), False, tile=serp.tile)


def test_heuristic_tiles_fit_the_loader():
    """Shapes whose reads keep fewer vectors than the heuristic sized its tile by (a stepped vector wider than the
    tile; single-value reads on a narrow tile over K = 48): the tile's k-tile shrinks until each loader thread's
    copies fit the predicate mask, on devices with and without wgmma, so planning never refuses its own tile."""
    from gettpy.kernels.spec import MAX_LOADS
    from gettpy.plan.schedule import make_schedule

    ext = (("a", 128), ("b", 62), ("c", 200), ("d", 62), ("e", 72))
    p = ContractionProblem(TensorInfo("A", ("a", "e"), (72, 1), "f16"),
                           TensorInfo("B", ("e", "d", "c", "b"), (3844, 62, 276768, 1), "f16"),
                           TensorInfo("C", ("a", "c", "d", "b"), (768800, 3844, 1, 62), "f16"),
                           TensorInfo("D", ("a", "d", "b", "c"), (1, 1587200, 25600, 128), "f16"), ext)
    core = make_schedule(p).core
    for sm, wg in ((108, False), (132, True)):
        spec = kernel_spec(core, True, sm_count=sm, wgmma=wg)
        t, loaders = spec.tile, 128 if spec.tile.ws else spec.tile.threads
        for op, tmn in ((spec.a, t.bm), (spec.b, t.bn)):
            assert -(-tmn * t.bk // (op.vec * loaders)) <= MAX_LOADS, (sm, t, op.vec)
        if not wg:
            assert (t.bm, t.bn, t.bk) == (128, 128, 32) and spec.a.vec == 1  # (bk 64 would be 64 loads a thread)


def test_narrow_ws_tile_needs_16_byte_b():
    """The narrow warp-specialised tile (256 x 32) copies 16-byte vectors of both inputs: with B's base aligned to
    8 bytes only, the heuristic keeps the narrow mma.sync tile instead of refusing its own choice."""
    from gettpy.plan.schedule import make_schedule

    ext = {"a": 250, "b": 200, "c": 3, "d": 24, "e": 31, "f": 48}
    a = TensorInfo("A", ("f", "e", "a", "c", "b"), (1, 48, 1488, 372000, 1116000), "bf16")
    for align in (16, 8):
        b = TensorInfo("B", ("d", "f", "e"), (48, 1, 1152), "bf16", align=align)
        d = TensorInfo("D", ("c", "a", "b", "d"), (6000, 1, 18000, 250), "f32")
        s = make_schedule(ContractionProblem(a, b, None, d, tuple(sorted(ext.items()))))
        spec = kernel_spec(s.core, False)
        assert spec.tile.ws == (align == 16), (align, spec.tile)


def _simt_spec(eq, ext, order="C"):
    from gettpy.plan.tiles import kernel_spec

    return kernel_spec(make_plan(dense_problem(eq, ext, "f32", order)), False, wgmma=False)


def test_simt_register_estimate():
    """`simt_registers`: 30 + 1.6 per accumulator + 2.6 per copy a thread issues a k-tile, rounded up; the register
    cap of n CTAs is 65536 / (threads x n) in steps of 8, at most 255."""
    from gettpy.plan.passes import _register_cap, simt_registers

    t = TileConfig(64, 128, 16, 4, tm=8, tn=8, min_blocks=3)  # (128 threads: copies 8/va + 16/vb)
    assert simt_registers(t, _Vec(1), _Vec(1)) == math.ceil(30 + 1.6 * 64 + 2.6 * 24) == 195
    assert simt_registers(t, _Vec(4), _Vec(4)) == math.ceil(30 + 1.6 * 64 + 2.6 * 6) == 148
    t = TileConfig(64, 128, 16, 3, tm=4, tn=8)  # (256 threads: 4 + 8 element copies)
    assert simt_registers(t, _Vec(1), _Vec(1)) == math.ceil(30 + 1.6 * 32 + 2.6 * 12) == 113
    assert [_register_cap(128, n) for n in (1, 2, 3)] == [255, 255, 168]
    assert [_register_cap(256, n) for n in (1, 2, 3, 4)] == [255, 128, 80, 64]


class _Vec:
    """The one field of an OperandSpec that `simt_registers` reads."""

    def __init__(self, vec):
        self.vec = vec


@pytest.mark.parametrize("ext", [
    {"i": 1501, "j": 731, "k": 1203},   # (odd everywhere: both inputs read element by element)
    {"i": 977, "j": 389, "k": 2011},
])
def test_element_copies_keep_256_threads(ext):
    """A compute-bound f32 GEMM (not on the f64 tensor cores: a target without them) whose inputs are read element by
    element (odd row lengths, row-major) does not take the 128-thread 8 x 8 tile: its ~24 copies a k-tile need ~195
    registers, over that tile's cap of 168 (it spilled 100-150 bytes a thread). It keeps 256 threads, at 2 CTAs
    per SM (128 registers); the same GEMM on aligned rows takes the 128-thread tile."""
    spec = _simt_spec("ij,jk->ik", ext)
    t = spec.tile
    assert spec.a.vec == 1 and spec.b.vec == 1
    assert t.threads == 256 and t.min_blocks == 2 and t.tm * t.tn == 32, t
    aligned = {m: e // 8 * 8 for m, e in ext.items()}
    t = _simt_spec("ij,jk->ik", aligned).tile
    assert (t.threads, t.tm, t.tn, t.min_blocks) == (128, 8, 8, 3), t


def test_f32_outer_products_take_the_outer_tile():
    """An f32 shape whose K is under one k-tile of 8 (an outer product: its CTAs are epilogue alone) takes
    SIMT_OUTER_TILE where both sides have 128; K = 8-32 keeps the 64 x 64 tiles, and so does a side under 128."""
    from gettpy.plan.heuristic import SIMT_OUTER_TILE

    for M, N, K in ((3001, 4099, 1), (129, 70001, 1), (5000, 200, 7)):
        assert choose_tile(M, N, K, dtype="f32", wgmma=True) == SIMT_OUTER_TILE, (M, N, K)
    for M, N, K in ((3001, 4099, 8), (3001, 4099, 24), (100, 4099, 1)):
        t = choose_tile(M, N, K, dtype="f32", wgmma=True)
        assert t != SIMT_OUTER_TILE and (max(t.bm, t.bn) <= 64 or min(M, N) < 128), (M, N, K, t)


def test_wgmma_stages_fit_the_registers():
    """A cp.async-fed wgmma tile keeps the stages its estimated registers hold (`passes.wgmma_registers`: 19 +
    accumulators + 2 per copy a stage for each stage past the first, under 255 - 16): 4-byte copies of a 128 x 64
    tile (24 a thread a stage) keep 4 of 8 stages, 8- and 4-byte ones (16) keep 6, 16-byte ones (6) all 8; TMA,
    warp-specialised and 3-stage tiles are left alone."""
    from gettpy.kernels.spec import OperandSpec
    from gettpy.layouts.descriptor import build_dim_map
    from gettpy.plan.passes import _wgmma_stages, wgmma_registers

    def op(vec):
        return OperandSpec("f16", build_dim_map([128], [4096]), build_dim_map([4096], [1]), build_dim_map([], []), vec,
                           True)

    t = TileConfig(128, 64, 64, 8, wm=64, wn=64, wgmma=True)
    assert wgmma_registers(t, op(2), op(2), 4) == 19 + 32 + 2 * 24 * 3
    assert _wgmma_stages(t, op(2), op(2)).stages == 4
    assert _wgmma_stages(t, op(4), op(2)).stages == 6
    assert _wgmma_stages(t, op(8), op(8)) == t
    three = TileConfig(128, 128, 64, 3, wm=64, wn=128, wgmma=True)
    assert _wgmma_stages(three, op(2), op(2)) == three
    ws = TileConfig(128, 256, 64, 4, wm=64, wn=256, wgmma=True, ws=True, tma=True)
    assert _wgmma_stages(ws, op(8), op(8)) == ws


def test_warp_specialised_tiles_refuse_an_empty_k():
    """K = 0 (an empty summed mode: D = beta C) never fills a warp-specialised tile's stages, whose consumers store D
    after them: such a tile, forced (an autotuner candidate, say), is refused; the heuristic's tile is a plain one."""
    from gettpy.errors import KernelError
    from gettpy.kernels.spec import TileConfig

    plan = tccg_plan("ab-ac-cb", (1024, 1024, 0), "f16")
    assert not kernel_spec(plan, False).tile.ws
    for tma in (False, True):
        ws = TileConfig(128, 256, 64, 4, wm=64, wn=256, wgmma=True, ws=True, tma=tma)
        with pytest.raises(KernelError, match="warp-specialised tiles need K > 0"):
            kernel_spec(plan, False, tile=ws)
        kernel_spec(tccg_plan("ab-ac-cb", (1024, 1024, 64), "f16"), False, tile=ws)  # (K > 0: taken)
