"""The planner's pure-Python choices for the GPU kernels, without NVRTC: tile heuristics (mma, simt, wgmma, TMA,
persistent, stream-K, narrow shapes), their cost models and register caps, the kernel spec's validation and the
TMA box geometry, each checked against expected values stated as data (the kernels themselves are compiled in
tests/compile/test_kernels_compile.py)."""
from __future__ import annotations

import math

import pytest
from harness import tccg_plan

from gettpy import ops
from gettpy.errors import KernelError
from gettpy.kernels import build as B
from gettpy.kernels.render import render_map
from gettpy.kernels.spec import KernelSpec, TileConfig
from gettpy.layouts.descriptor import build_dim_map
from gettpy.plan.tiles import choose_tile, kernel_spec

ARCH = "sm_90"  # (the target the kernels are planned for; nothing here compiles)


def test_render_map_skips_wrap_and_div():
    dm = build_dim_map((4, 3), (3, 1))
    s = render_map(dm)
    assert s == "gett::Map<gett::Term<1LL, 4LL, 3LL, true>, gett::Term<4LL, 3LL, 1LL, false>>"


def test_tile_heuristic():
    t = choose_tile(97344, 24, 312, dtype="f16")  # narrow N: 32 wide, 256 long
    assert (t.bm, t.bn, t.threads) == (256, 32, 256)
    t = choose_tile(24, 97344, 312, dtype="f16")
    assert (t.bm, t.bn, t.threads) == (32, 256, 256)
    assert choose_tile(97344, 16, 312, dtype="f16").bn == 16
    t = choose_tile(5184, 5184, 5184, dtype="f16", wgmma=False)
    assert (t.bm, t.bn, t.bk, t.stages, t.wm, t.wn) == (128, 128, 64, 3, 64, 64)  # compute-bound, mma.sync
    t = choose_tile(5184, 5184, 5184, dtype="f16")  # on sm_90: warpgroup MMA, the big tile
    assert t.wgmma and (t.bm, t.bn, t.bk, t.stages, t.threads) == (256, 128, 64, 4, 512)
    t = choose_tile(5184, 5184, 5184, dtype="f16", vec_a=1)  # a gathered input keeps 8 warps, bk 32
    assert (t.bm, t.bn, t.bk, t.stages) == (128, 128, 32, 4) and not t.wgmma
    assert choose_tile(92352, 296, 312, dtype="f16", wgmma=False).bk == 64  # K >= 64: bk 64, 64x64 warps
    t = choose_tile(296, 92352, 312, dtype="f16")  # memory-bound on sm_90: the small wgmma tile
    assert t.wgmma and (t.bm, t.bn, t.stages) == (128, 128, 3)
    t = choose_tile(92352, 312, 296, dtype="f16")  # ... 256 rows when tall and skinny
    assert t.wgmma and (t.bm, t.bn, t.stages) == (256, 128, 3)
    t = choose_tile(373248, 72, 72, dtype="f16")  # ... not when N is under one 128-wide tile
    assert t.wgmma and (t.bm, t.bn, t.stages) == (128, 128, 3)
    t = choose_tile(5184, 72, 5184, dtype="f16")  # under a wave of 128x128 but a long K: 128x64 wgmma, 8 stages
    assert t.wgmma and (t.bm, t.bn, t.bk, t.stages) == (128, 64, 64, 8)
    t = choose_tile(5184, 72, 512, dtype="f16")  # (a short K keeps the tile that fills the machine)
    assert not t.wgmma and (t.bm, t.bn) == (64, 64)
    assert not choose_tile(5184, 5184, 5184, dtype="f32", compute="tf32").wgmma  # tf32 stays on mma.sync
    assert not choose_tile(92352, 296, 48, dtype="f16").wgmma
    assert choose_tile(92352, 296, 48, dtype="f16").bk == 32
    t = choose_tile(2359296, 24, 48, dtype="f16")  # a narrow tile over K = 48: one k-tile of 48, 2 stages
    assert (t.bm, t.bn, t.bk, t.stages, t.wgmma) == (256, 32, 48, 2, False)
    assert choose_tile(2359296, 24, 32, dtype="f16").bk == 32 and choose_tile(2359296, 24, 72, dtype="f16").bk == 32
    # (not for scalar reads: 48 k per copy row would exceed the loader's 32 copies per thread)
    assert choose_tile(2359296, 24, 48, dtype="f16", vec_a=1).bk == 32
    assert choose_tile(2000, 24, 48, dtype="f32", compute="tf32").bk == 32


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


def test_f32_narrow_side_exact():
    """f32 with a narrow side of 24 (#1-#8): tiles exactly 24 wide, 3 rows (or columns) per thread; a long
    K on 24 x 128 (4 stages), a short one on 24 x 256; narrow sides of 16 and 32 keep their tiles."""
    t = choose_tile(24, 97344, 312, dtype="f32")
    assert (t.bm, t.bn, t.bk, t.stages, t.tm, t.tn, t.threads) == (24, 128, 16, 4, 3, 4, 256)
    t = choose_tile(24, 2359296, 32, dtype="f32")
    assert (t.bm, t.bn, t.stages, t.tm, t.tn, t.threads) == (24, 256, 3, 3, 8, 256)
    t = choose_tile(373248, 24, 72, dtype="f32")  # (the narrow side on n)
    assert (t.bm, t.bn, t.tm, t.tn) == (256, 24, 8, 3)
    assert (choose_tile(24, 97344, 312, dtype="f16").bm, choose_tile(32, 97344, 312, dtype="f32").bm) == (32, 32)
    assert choose_tile(16, 97344, 312, dtype="f32").bm == 16


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
    the 256 x 160 TMA tile with boxes of gcd(72, 80) = 8 rows (measured faster than the cp.async tile on the H100,
    results/v21_h100/call9/, call11/); a = 76 (gcd 4: not whole swizzle atoms) keeps the cp.async tile, and so does
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
    load it; every dim and stride checked against the operand's own layout."""
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


def test_stream_k_heuristic():
    """Stream-K where a compute-bound simt grid ends in a partial wave: #20 f32 at TCCG's size (3321 tiles of
    128 x 64 on 132 SMs x 3, 8.4 waves) deals its last 3321 % 396 + 396 tiles out to 396 CTAs; tensor-core
    tiles, and simt shapes whose waves are nearly full or whose K is short (#15: 20 k-tiles), keep one CTA
    per tile."""
    import math

    from gettpy.plan.tiles import SK_MIN_KTILES, SK_WAVE_FILL

    def spec_of(con, ext, dt):
        return kernel_spec(tccg_plan(con, ext, dt, order="F"), False)

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


@pytest.mark.parametrize("nt,g,kt,split", [(1681, 264, 324, 0), (361, 264, 324, 0), (7, 5, 3, 0), (6, 50, 5, 0),
                                           (40, 7, 63, 0), (9, 9, 1, 0), (100, 33, 2, 0), (840, 132, 81, 2),
                                           (820, 132, 81, 4), (861, 132, 81, 3), (40, 7, 63, 5), (6, 50, 5, 8),
                                           (100, 33, 2, 3)])
def test_stream_k_shares(nt, g, kt, split):
    """gett.cuh's stream-K arithmetic, enumerated: every k-iteration of the stream-K tiles belongs to one
    CTA (sk_begin), sk_cta_of finds it, each cut tile's contributors are c_lo..c_hi, and the two slots per
    CTA (its share starting inside a tile, its share ending inside one) are never used by two tiles. The
    aligned form (split > 0): the partial wave's tiles only, each in min(split, kt) slices of one tile."""
    from gettpy.kernels.spec import KernelSpec, TileConfig

    spec = kernel_spec(tccg_plan("ab-ac-cb", (64 * nt, 64, kt * 8), "f32", order="F"), False,
                       tile=TileConfig(64, 64, 8, 2, tm=4, tn=4, sk_ctas=g, sk_split=split))
    assert isinstance(spec, KernelSpec)
    if split:
        assert spec.sk_tiles == (nt % g if nt > g else nt)
        assert spec.sk_ctas == spec.sk_tiles * min(split, kt)
        assert spec.grid == nt - spec.sk_tiles + spec.sk_ctas
    else:
        assert spec.sk_tiles == min(nt, nt % g + g)
        assert spec.sk_ctas == min(g, spec.sk_tiles * kt)  # (at most one CTA per k-iteration: each has a share)
    sk = spec.sk_tiles
    iters = sk * kt
    g = spec.sk_ctas
    begin = [c * iters // g for c in range(g + 1)]
    assert all(begin[c] < begin[c + 1] for c in range(g))
    if split:  # (each share inside one tile, the slices of a tile equal to within one k-tile)
        assert all(begin[c] // kt == (begin[c + 1] - 1) // kt for c in range(g))
        assert max(begin[c + 1] - begin[c] for c in range(g)) - min(begin[c + 1] - begin[c] for c in range(g)) <= 1
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
    simt tiles, wider tiles and TMA / wgmma tiles are left as they were (results/v15_h100/call1/, call2/)."""
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
