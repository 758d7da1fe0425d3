"""Render and compile GETT kernels with NVRTC for sm_90 (no GPU needed; skipped without cuda-bindings).

Covers both compute paths, partial and full tiles, vectorised and gather loads, 64-bit offsets, fused
ops and read_c; asserts no register spills, a disk-cache hit on the second build and the rebuild of a
corrupt cache entry.
"""
from __future__ import annotations

import math
import os

import numpy as np
import pytest

pytest.importorskip("cuda.bindings.nvrtc")

from gettpy import ops  # noqa: E402
from gettpy.errors import KernelError  # noqa: E402
from gettpy.kernels import build as B  # noqa: E402
from gettpy.kernels.render import render, render_map  # noqa: E402
from gettpy.kernels.report import compile_suite, format_rows  # noqa: E402
from gettpy.kernels.spec import ITEMSIZE, KernelSpec, TileConfig  # noqa: E402
from gettpy.layouts.descriptor import build_dim_map  # noqa: E402
from gettpy.plan import ContractionProblem, TensorInfo, make_plan  # noqa: E402
from gettpy.plan.tiles import choose_tile, kernel_spec  # noqa: E402

try:
    B.include_dir()
except Exception:  # noqa: BLE001
    pytest.skip("no CUDA headers (nvidia-cuda-runtime wheel) for NVRTC", allow_module_level=True)

ARCH = "sm_90"


def _strides(shape, order):
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
        return TensorInfo(name, tuple(modes), _strides([ext[m] for m in modes], order), d,
                          op=op or ops.identity)

    p = ContractionProblem(ti("A", a, dt, op_a), ti("B", b, dt), ti("C", c, out) if with_c else None,
                           ti("D", c, out, op_d), tuple(sorted(ext.items())))
    return make_plan(p)


CASES = [
    # label, plan, read_c
    ("mma_vec_f16", tccg_plan("abcd-aebf-dfce", (72,) * 6, "f16", "f16", "F"), False),
    ("mma_f16_to_f32_C", tccg_plan("abcd-aebf-dfce", (72,) * 6, "f16", "f32", "C", with_c=True), True),
    ("mma_narrow_n", tccg_plan("abc-bda-dc", (312, 312, 24, 312), "f16"), False),
    ("mma_bf16_partial", tccg_plan("abcd-aebf-fdec", (35, 35, 35, 35, 35, 35), "bf16"), False),
    ("mma_gather_ops", tccg_plan("abc-adec-ebd", (13, 17, 7, 11, 5), "f16", "f32", "C", op_a=ops.gelu,
                                 op_d=ops.relu), False),
    ("simt_f32_vec", tccg_plan("abcd-aebf-dfce", (72,) * 6, "f32"), False),
    ("simt_f32_gather", tccg_plan("abcdef-dega-gfbc", (23, 15, 15, 23, 15, 15, 23), "f32", order="C"), False),
    ("simt_f64", tccg_plan("ab-ac-cb", (513, 511, 257), "f64", with_c=True), True),
    ("no_partial", tccg_plan("ab-ac-cb", (1024, 1024, 1024), "f16"), False),
]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    old = os.environ.get("GETTPY_CACHE_DIR")
    d = tmp_path_factory.mktemp("gettpy-cache")
    os.environ["GETTPY_CACHE_DIR"] = str(d)
    yield d
    if old is None:
        os.environ.pop("GETTPY_CACHE_DIR", None)
    else:
        os.environ["GETTPY_CACHE_DIR"] = old


@pytest.mark.parametrize("label,plan,read_c", CASES, ids=[c[0] for c in CASES])
def test_compiles_without_spills(label, plan, read_c, cache):
    spec = kernel_spec(plan, read_c)
    k = B.build(spec, ARCH)
    r = k.report
    assert r.registers > 0, k.log
    assert r.spill_stores == 0 and r.spill_loads == 0, f"{label}: {r}\n{k.log}"
    assert len(k.cubin) > 1000
    if label == "no_partial":
        assert spec.no_partial
    if label.startswith("mma"):
        assert spec.path in ("mma", "wgmma")
    if label == "mma_vec_f16":  # 5184^3: compute-bound, the big warpgroup tile
        assert spec.path == "wgmma" and (spec.tile.bm, spec.tile.bn, spec.tile.stages) == (256, 128, 4)
    if label == "mma_vec_f16":
        assert spec.a.vec == 8 or spec.b.vec == 8


def test_64bit_offsets(cache):
    # a broadcast-free A whose m stride puts the last row past 2^31 elements
    p = ContractionProblem(TensorInfo("A", ("i", "k"), (2**31 // 3 + 5, 1), "f16"),
                           TensorInfo("B", ("k", "j"), (64, 1), "f16"), None,
                           TensorInfo("D", ("i", "j"), (64, 1), "f32"),
                           (("i", 4), ("j", 64), ("k", 32)))
    plan = make_plan(p)
    spec = kernel_spec(plan, False)
    assert spec.index64
    src, _ = render(spec)
    assert "using Index = long long;" in src
    r = B.build(spec, ARCH).report
    assert r.spills == 0


def test_render_map_skips_wrap_and_div():
    dm = build_dim_map((4, 3), (3, 1))
    s = render_map(dm)
    assert s == "gett::Map<gett::Term<1LL, 4LL, 3LL, true>, gett::Term<4LL, 3LL, 1LL, false>>"


def test_cache_hit_and_corrupt_entry_rebuilt(cache):
    spec = kernel_spec(tccg_plan("ab-ac-cb", (100, 60, 36), "f32"), False)
    k1 = B.build(spec, ARCH)
    k2 = B.build(spec, ARCH)
    assert k2.from_cache and k2.cubin == k1.cubin and k2.report == k1.report
    src, _ = render(spec)
    path = B._entry_path(B.cache_key(src, B.normalize_arch(ARCH)))
    with open(path, "r+b") as f:  # truncate: a torn write
        f.truncate(os.path.getsize(path) // 2)
    k3 = B.build(spec, ARCH)
    assert not k3.from_cache and k3.cubin == k1.cubin
    assert B.build(spec, ARCH).from_cache
    with open(path, "r+b") as f:  # flip a byte in the cubin
        f.seek(-10, os.SEEK_END)
        b = f.read(1)
        f.seek(-10, os.SEEK_END)
        f.write(bytes([b[0] ^ 0xFF]))
    assert not B.build(spec, ARCH).from_cache


def test_unwritable_cache_dir_disables_caching(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")  # a file where the cache directory should be: unwritable even for root
    monkeypatch.setenv("GETTPY_CACHE_DIR", str(blocker / "sub"))
    spec = kernel_spec(tccg_plan("ab-ac-cb", (40, 24, 8), "f32"), False)
    B._warned_readonly.clear()
    with pytest.warns(RuntimeWarning, match="not writable"):
        k = B.build(spec, ARCH)
    assert not k.from_cache and len(k.cubin) > 0


def test_header_edit_changes_cache_key():
    spec = kernel_spec(tccg_plan("ab-ac-cb", (40, 24, 8), "f32"), False)
    src, _ = render(spec)
    assert "gett_offset" in src and "#include <cuda_fp16.h>" in src
    assert B.cache_key(src, ARCH) != B.cache_key(src.replace("gett_offset", "gett_offset "), ARCH)


def test_compile_suite_rows(cache):
    rows = compile_suite([(c[0], c[1], c[2]) for c in CASES[:3]], arch="sm_90", workers=2)
    assert [r["label"] for r in rows] == [c[0] for c in CASES[:3]]
    assert all(not r["error"] and r["regs"] > 0 for r in rows)
    assert "compiled" in format_rows(rows)


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


@pytest.mark.parametrize("dtype,compute,sa,sb", [
    ("f32", "tf32", (1, 2000), (1, 24)),  # tf32: m/n-major inputs are read element by element
    ("f16", "f32", (2, 4000), (3, 72)),  # gathered inputs (no unit stride)
    ("f16", "f32", (48, 1), (48, 1)),  # k-major vectors: one k-tile of 48
])
def test_narrow_k48_tiles_compile(dtype, compute, sa, sb):
    """The heuristic tile of a narrow GEMM over K = 48 compiles for every way its inputs are read (the
    bk = K tile only where both are read in vectors)."""
    from gettpy.plan import ContractionProblem, TensorInfo, make_plan
    from gettpy.plan.tiles import kernel_spec

    ext = {"m": 2000, "n": 24, "k": 48}
    p = ContractionProblem(TensorInfo("A", ("m", "k"), sa, dtype), TensorInfo("B", ("n", "k"), sb, dtype), None,
                           TensorInfo("D", ("m", "n"), (1, 2000), "f32" if compute == "tf32" else dtype),
                           tuple(sorted(ext.items())), compute)
    spec = kernel_spec(make_plan(p), False)
    B.build(spec, "sm_90")  # (raises KernelError if NVRTC rejects it)
    assert spec.tile.bk == (48 if sa == (48, 1) else 32)
    assert choose_tile(5184, 5184, 5184, dtype="f32", wgmma=False).tm > 0  # (sm_90: the f64 tensor cores)
    t = choose_tile(6144, 6144, 24, dtype="f32")  # f32, short K (ccsd_t): 64x64 tiles, 3 k-tiles of 8
    assert (t.bm, t.bn, t.bk, t.stages, t.tm, t.tn) == (64, 64, 8, 4, 4, 4)  # (4 stages: every load at once)
    t = choose_tile(6144, 6144, 72, dtype="f32")  # K = 72: 80 columns of bk 16 (11% zero-fill) stays
    assert (t.bm, t.bn, t.bk) == (128, 128, 16)
    assert choose_tile(6144, 6144, 24, dtype="f64").bk == 8 and choose_tile(6144, 6144, 24, dtype="f64").bm > 64
    t = choose_tile(72, 373248, 72, dtype="f32")  # f32, M = 72 between tile sizes: one row of 72 x 128 tiles
    assert (t.bm, t.bn, t.bk, t.tm, t.tn, t.threads) == (72, 128, 8, 9, 4, 256)
    assert choose_tile(72, 373248, 72, dtype="f16").bm != 72  # (the mma paths keep their tiles)
    t = choose_tile(373248, 72, 72, dtype="f32")  # (N = 72: 128 x 72)
    assert (t.bm, t.bn, t.tm, t.tn, t.threads) == (128, 72, 4, 9, 256)
    assert choose_tile(5184, 72, 512, dtype="f32").bn == 64  # (a middle K and 41 such tiles: the 64 x 64 tile)
    t = choose_tile(5184, 72, 5184, dtype="f32")  # (a long K: 128 x 72, the schedule's split-K fills the machine)
    assert (t.bm, t.bn, t.bk, t.tm, t.tn) == (128, 72, 16, 4, 9)
    assert choose_tile(5184, 72, 648, batch=8, dtype="f32").bn == 72  # (a wave of them: the split core's tile)
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


def test_f32_register_caps():
    """Heuristic f32 simt tiles leave registers for more CTAs per SM: 64 x 64 for 4 (ccsd_t), 128 x 64 and
    64 x 128 for 3, 128 x 128 for 2 when both inputs are read mn-major (compute-bound: 128 x 64 of 128
    threads for 3); with a k-major input 128 x 64 for 2; f64 and the mma paths keep 1."""
    from gettpy.plan.tiles import kernel_spec

    def tile(con, ext, dt="f32"):
        return kernel_spec(tccg_plan(con, ext, dt), False).tile

    t = tile("abcdef-degc-gfab", (24, 16, 16, 24, 16, 16, 24))
    assert (t.bm, t.bn, t.min_blocks) == (64, 64, 4)
    t = tile("abc-ad-bdc", (312, 312, 296, 296))
    assert (t.bm, t.bn, t.min_blocks) == (128, 64, 3)
    t = tile("ab-ac-bc", (4096, 2048, 34))  # (both inputs mn-major, memory-bound)
    assert (t.bm, t.bn, t.min_blocks) == (128, 128, 2)
    t = tile("abcd-aebf-dfce", (72,) * 6)  # (both inputs mn-major, compute-bound: 128 threads of 8 x 8)
    assert (t.bm, t.bn, t.tm, t.tn, t.min_blocks) == (128, 64, 8, 8, 3)
    spec = kernel_spec(tccg_plan("ab-ac-cb", (5136, 5120, 5136), "f32"), False)  # (one input k-major)
    assert (spec.a.kmajor or spec.b.kmajor) and (spec.tile.bm, spec.tile.bn, spec.tile.tn, spec.tile.min_blocks) == (
        128, 64, 4, 2)
    assert tile("ab-ac-cb", (513, 511, 257), "f64").min_blocks == 1
    assert tile("abcd-aebf-dfce", (72,) * 6, "f16").min_blocks == 1
    r = B.build(spec, ARCH).report
    assert r.registers <= 128 and r.spill_stores == 0


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
    assert B.build(kernel_spec(p2, False), ARCH).report.spill_stores == 0
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
    r2 = B.build(kernel_spec(tccg_plan("abc-dca-bd", (312, 24, 296, 312), "f32"), False), ARCH).report
    assert 0 < r2.registers <= 65536 // f2.threads and r2.spill_stores == 0
    f1 = kernel_spec(tccg_plan("abc-bda-dc", (312, 312, 24, 312), "f32"), False).tile
    assert (f1.bm, f1.bn, f1.bk, f1.tm, f1.tn) == (24, 128, 16, 3, 4)
    f5 = kernel_spec(tccg_plan("abcd-ebad-ce", (72, 72, 24, 72, 72), "f32"), False).tile
    assert (f5.bm, f5.bn, f5.bk) == (24, 256, 16)


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
    from gettpy.errors import KernelError

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


def test_d_run_tiles():
    """ccsd_t (#32, #31): D's run of 24 continues in the other GEMM dimension: the tile is cut to 96 along
    it (mma tiles) and the epilogue walks run by run; #33 (D contiguous over a whole tile) keeps 128."""
    ext = (24, 16, 16, 24, 16, 16, 24)
    for con, cont in (("abcdef-degb-gfac", 16), ("abcdef-dega-gfbc", 128)):
        spec = kernel_spec(tccg_plan(con, ext, "f16"), False)
        assert (spec.d.run, spec.d.cont) == (24, cont) and not spec.d.ncontig
        assert spec.tile.bm == 96 and spec.tile.bm % spec.d.run == 0, spec.tile
        assert (spec.tile.wm, spec.tile.wn, spec.tile.threads) == (48, 64, 128)  # four warps of 48 x 64
        assert B.build(spec, ARCH).report.spill_stores == 0
        spec = kernel_spec(tccg_plan(con, ext, "f32"), False)  # simt tiles are not cut (short K: 64x64)
        assert spec.tile.bm == 64 and spec.d.run == 0
    spec = kernel_spec(tccg_plan("abcdef-degc-gfab", ext, "f16"), False)
    assert spec.d.run == 0 and spec.tile.bm == 128


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


WGMMA_LAYOUTS = ["ab-ac-cb", "ab-ca-cb", "ab-ac-bc", "ab-ca-bc", "abcd-aebf-dfce"]


@pytest.mark.parametrize("dt", ["f16", "bf16"])
@pytest.mark.parametrize("con", WGMMA_LAYOUTS)
def test_wgmma_tiles_compile_for_sm90a(con, dt, cache):
    """Every A/B orientation (K-major or MN-major in shared memory) on the wgmma tiles the heuristic and
    the probe use: compiled for sm_90a without spills, the instruction's transpose flags set from the
    orientations, shared memory aligned for the swizzle atoms."""
    n = len(set(con.replace("-", "")))
    plan = tccg_plan(con, (200, 264, 136) if n == 3 else (24, 20, 18, 22, 12, 10), dt)
    for bm, bn, st in ((128, 128, 3), (256, 128, 4), (128, 256, 4), (64, 64, 2)):
        spec = kernel_spec(plan, False, tile=TileConfig(bm, bn, 64, st, wm=64, wn=bn, wgmma=True))
        k = B.build(spec, ARCH)
        assert k.arch == "sm_90a" and k.report.registers > 0
        assert k.report.spill_stores == 0, f"{con} {bm}x{bn}: {k.report}"
        src, _ = render(spec)
        flags = f"p, 1, 1, {int(not spec.a.kmajor)}, {int(not spec.b.kmajor)};"
        assert f"m64n{bn}k16.f32.{dt}.{dt}" in src and flags in src
        assert spec.smem_bytes >= st * (bm + bn) * 64 * 2 + 1024  # unpadded stages + the alignment slack


def test_compile_failure_falls_back_to_the_safe_tile(cache, monkeypatch):
    """A specialisation that does not compile is replaced by the safe tile, with a warning (issue 8)."""
    import warnings

    from gettpy.backends import gpu
    from gettpy.errors import KernelError
    from gettpy.kernels import build as build_mod

    plan = tccg_plan("abcd-aebf-dfce", (16, 16, 16, 16, 16, 16), "f16")  # heuristic: a 128x128 tile
    real = build_mod.build

    def flaky(spec, arch=None, use_cache=True):
        if spec.tile != gpu.safe_tile(spec):
            raise KernelError("NVRTC could not compile (injected failure)")
        return real(spec, "sm_90", use_cache)

    monkeypatch.setattr(gpu, "build", flaky)
    with pytest.warns(RuntimeWarning, match="safe tile"):
        spec = gpu.checked_spec(plan, False)
    assert spec.tile == gpu.safe_tile(spec)
    assert spec.M == plan.M and spec.N == plan.N and spec.K == plan.K  # the same contraction

    monkeypatch.setattr(gpu, "build", lambda spec, arch=None, use_cache=True: (_ for _ in ()).throw(
        KernelError("always fails")))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(KernelError, match="always fails"):
            gpu.checked_spec(plan, False)


_CONCURRENT_BUILD = """
import os, sys
sys.path.insert(0, {tests!r})
from test_kernels_compile import tccg_plan
from gettpy.kernels import build as B
from gettpy.plan.tiles import kernel_spec
spec = kernel_spec(tccg_plan("ab-ac-cb", (120, 72, 40), "f32"), False)
k = B.build(spec, "sm_90")
sys.stdout.write(k.cubin.hex()[:64] + " " + str(len(k.cubin)))
"""


def test_concurrent_processes_build_the_same_kernel(tmp_path):
    """Four processes compile the same specialisation into one empty cache directory at once: all get the
    same cubin, the cache holds one valid entry (atomic writes), and a later build is a cache hit."""
    import subprocess
    import sys

    env = dict(os.environ, GETTPY_CACHE_DIR=str(tmp_path))
    code = _CONCURRENT_BUILD.format(tests=os.path.dirname(__file__))
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(4)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1][-500:] for o in outs]
    assert len({o[0] for o in outs}) == 1
    entries = [f for _, _, fs in os.walk(tmp_path) for f in fs]
    assert len([f for f in entries if f.endswith(".bin") and not f.startswith(".tmp-")]) == 1
    assert not [f for f in entries if f.startswith(".tmp-")]  # no temporary left behind
    old = os.environ.get("GETTPY_CACHE_DIR")
    os.environ["GETTPY_CACHE_DIR"] = str(tmp_path)
    try:
        k = B.build(kernel_spec(tccg_plan("ab-ac-cb", (120, 72, 40), "f32"), False), "sm_90")
        assert k.from_cache and k.cubin.hex()[:64] + " " + str(len(k.cubin)) == outs[0][0]
    finally:
        if old is None:
            os.environ.pop("GETTPY_CACHE_DIR", None)
        else:
            os.environ["GETTPY_CACHE_DIR"] = old


@pytest.mark.parametrize("dt,tile", [
    ("f16", TileConfig(128, 128, 64, 3, wm=64, wn=128, wgmma=True, persistent=True)),
    ("f16", TileConfig(96, 128, 32, 2, wm=48, wn=64, persistent=True)),
    ("f32", TileConfig(64, 64, 8, 3, tm=4, tn=4, persistent=True)),
])
def test_persistent_tiles_compile(dt, tile, cache):
    """Persistent tiles (a CTA walks tiles, its pipeline running on across them) compile without spills;
    their shared memory is the pipeline's plus the epilogue tile's (the wrapper's static_assert checks
    spec.py's figure against the template's), more than the same tile's non-persistent maximum of the two."""
    import dataclasses

    plan = tccg_plan("abcdef-degb-gfac", (24, 16, 16, 24, 16, 16, 24), dt, with_c=True)
    spec = kernel_spec(plan, True, tile=tile)
    k = B.build(spec, ARCH)
    assert k.report.registers > 0 and k.report.spill_stores == 0
    flat = kernel_spec(plan, True, tile=dataclasses.replace(tile, persistent=False))
    assert spec.smem_bytes > flat.smem_bytes and B.build(flat, ARCH).name != k.name


@pytest.mark.parametrize("con", WGMMA_LAYOUTS)
def test_warp_specialised_tiles_compile(con, cache):
    """Warp-specialised wgmma tiles (384 threads: one loading, two computing warpgroups) compile for sm_90a
    without spills in every A/B orientation, also 224 wide (B's last column atom half used); ops on A or B
    are refused (no in-kernel transform there)."""
    import dataclasses

    from gettpy.errors import KernelError

    n = len(set(con.replace("-", "")))
    plan = tccg_plan(con, (200, 264, 136) if n == 3 else (24, 20, 18, 22, 12, 10), "f16", with_c=True)
    for bm, bn in ((256, 128), (128, 256), (128, 128), (128, 224)):
        tile = TileConfig(bm, bn, 64, 4, wm=64, wn=bn, wgmma=True, ws=True)
        flat = kernel_spec(plan, True, tile=dataclasses.replace(tile, ws=False, bn=128, wn=128))
        if min(flat.a.vec, flat.b.vec) < 8:  # (#20's layout in place: 2-element vectors along a)
            with pytest.raises(KernelError, match="16-byte vectors"):
                kernel_spec(plan, True, tile=tile)
            continue
        spec = kernel_spec(plan, True, tile=tile)
        k = B.build(spec, ARCH)
        assert k.arch == "sm_90a" and k.report.spill_stores == 0 and spec.tile.threads == 384
    with pytest.raises(KernelError, match="needs TMA loaders"):
        TileConfig(256, 160, 64, 4, wm=64, wn=160, wgmma=True, ws=True)
    with pytest.raises(KernelError, match="bn of 64"):
        TileConfig(128, 224, 64, 4, wm=64, wn=224, wgmma=True)  # (not warp-specialised: bn 64, 128, ...)
    with pytest.raises(KernelError, match="warp-specialised"):
        TileConfig(64, 128, 64, 4, wm=64, wn=128, wgmma=True, ws=True)
    with pytest.raises(KernelError, match="warp-specialised"):
        TileConfig(128, 128, 32, 4, wm=64, wn=64, ws=True)
    op_plan = tccg_plan(con, (200, 264, 136) if n == 3 else (24, 20, 18, 22, 12, 10), "f16", op_a=ops.relu)
    with pytest.raises(KernelError, match="applies no op to A or B"):
        kernel_spec(op_plan, False, tile=TileConfig(256, 128, 64, 4, wm=64, wn=128, wgmma=True, ws=True))


def test_tma_tiles_compile_and_geometry(cache):
    """TMA tiles compile (tensor maps as __grid_constant__ parameters); the geometry of plain, packed and
    batched operands, and none for a dimension of several stride terms (TCCG #20's A in place)."""
    from gettpy.errors import KernelError
    from gettpy.kernels.tma import geometry

    tile = TileConfig(256, 128, 64, 4, wm=64, wn=128, wgmma=True, ws=True, tma=True)
    spec = kernel_spec(tccg_plan("ab-ac-cb", (512, 520, 264), "f16"), False, tile=tile)
    k = B.build(spec, ARCH)
    assert k.report.spill_stores == 0 and "__grid_constant__" in render(spec)[0]
    # 256 x 160: 160 accumulators a computing thread, C read; without the loaders' registers moved to them
    # by setmaxnreg, ptxas spills 1.7 KB there
    big = TileConfig(256, 160, 64, 4, wm=64, wn=160, wgmma=True, ws=True, tma=True)
    for con in ("ab-ac-cb", "ab-ca-bc"):
        s160 = kernel_spec(tccg_plan(con, (512, 520, 264), "f16", with_c=True), True, tile=big)
        k160 = B.build(s160, ARCH)
        assert big.reg_split and k160.report.spill_stores == 0 and k160.report.registers == 168
    assert not tile.reg_split  # (256 x 128: 128 accumulators a computing thread)
    for op, tmn in ((spec.a, 256), (spec.b, 128)):  # column-major: one operand k-major, the other mn-major
        g = geometry(op, tmn, 64, 1)
        inner, outer = (264, op.mn.extent) if op.kmajor else (op.mn.extent, 264)
        assert g.dims == (inner, outer) and g.strides == (2 * inner,)
        assert g.box == ((64, tmn) if op.kmajor else (64, 64))  # (mn-major: a 64 x 64 box per column atom)
    assert spec.a.kmajor != spec.b.kmajor
    plan = tccg_plan("abcd-aebf-dfce", (24, 20, 18, 22, 12, 10), "f16")
    with pytest.raises(KernelError, match="no tensor map"):
        kernel_spec(plan, False, tile=TileConfig(128, 128, 64, 4, wm=64, wn=128, wgmma=True, ws=True, tma=True))
    with pytest.raises(KernelError, match="warp-specialised"):
        TileConfig(128, 128, 64, 4, wm=64, wn=128, wgmma=True, tma=True)


def test_reg_split_launch_registers(cache, monkeypatch):
    """A tile whose warpgroups trade registers with setmaxnreg is refused if ptxas launched it with too few
    of them to grant the computing warpgroups their 232 (it would wait forever at the setmaxnreg)."""
    import dataclasses

    from gettpy.errors import KernelError

    big = TileConfig(256, 160, 64, 4, wm=64, wn=160, wgmma=True, ws=True, tma=True)
    spec = kernel_spec(tccg_plan("ab-ac-cb", (512, 520, 264), "f16"), False, tile=big)
    real = B.build_source

    def short(*a, **kw):
        k = real(*a, **kw)
        return dataclasses.replace(k, report=dataclasses.replace(k.report, registers=160))

    monkeypatch.setattr(B, "build_source", short)
    with pytest.raises(KernelError, match="too few for its warpgroups' setmaxnreg"):
        B.build(spec, ARCH)


def test_cluster_tiles_compile(cache):
    """Clusters of two TMA tiles: the kernel carries __cluster_dims__, the grid pads the tile rows to whole
    pairs, B's tensor map has half-height boxes when B is k-major; invalid clusters are refused."""
    from gettpy.errors import KernelError
    from gettpy.kernels.tma import geometry

    tile = TileConfig(128, 256, 64, 4, wm=64, wn=256, wgmma=True, ws=True, tma=True, cluster=2)
    for ext in ((520, 680, 264), (680, 520, 264)):  # (5 or 6 tile rows: padded to 6)
        spec = kernel_spec(tccg_plan("ab-ac-cb", ext, "f16"), False, tile=tile)
        k = B.build(spec, ARCH)
        assert k.report.spill_stores == 0 and "__cluster_dims__(2, 1, 1)" in render(spec)[0]
        assert spec.grid == 6 * -(-spec.N // 256)
        g = geometry(spec.b, 256 // 2, 64, 1)
        assert g.box == ((64, 128) if spec.b.kmajor else (64, 64))
    for bm, bn in ((128, 224), (256, 160)):  # (B's column atoms: 4 shared 2 + 2, 3 shared 2 + 1)
        t = TileConfig(bm, bn, 64, 4, wm=64, wn=bn, wgmma=True, ws=True, tma=True, cluster=2)
        spec = kernel_spec(tccg_plan("ab-ac-cb", (680, 520, 264), "f16"), False, tile=t)
        assert B.build(spec, ARCH).report.spill_stores == 0
    for bad in (dict(tma=False), dict(group_m=3), dict(bn=200, wn=200), dict(sk_ctas=132), dict(cluster=4)):
        kw = dict(bm=128, bn=256, bk=64, stages=4, wm=64, wn=256, wgmma=True, ws=True, tma=True, cluster=2) | bad
        with pytest.raises(KernelError, match="cluster"):
            TileConfig(**kw)


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
    assert "EPI_CHUNK = true" in render(spec)[0] and B.build(spec, ARCH).report.spill_stores == 0
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
    gets the flag in its Cfg and compiles without spills; the heuristic's chunked tile (#12 f16) takes them, its
    one-tile-per-CTA tiles (#12 f16 -> f32, #20) cannot."""
    import dataclasses

    from gettpy.errors import KernelError

    serp = kernel_spec(tccg_plan("ab-ac-cb", (5136, 5120, 5136), "f16"), False)
    assert serp.tile.serpentine and serp.tile.chunked and "SERP = true," in render(serp)[0]
    assert B.build(serp, ARCH).report.spill_stores == 0
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


def test_tma_geometry_split(cache):
    """A k-major operand whose mn dimension is two stride terms (TCCG #2's big input: n = (a, c), a first)
    gets a rank-3 map where the tile's rows divide a's extent, so that no tile straddles two values of c:
    enumerated over every tile, box row and k, the map's address (coordinates k, n0 % 208 + row, n0 / 208)
    is the element the tensor's own modes give. Tiles of other heights and mn-major reads get no map."""
    import dataclasses

    from gettpy.errors import KernelError
    from gettpy.kernels.tma import geometry

    ext = {"a": 208, "b": 24, "c": 40, "d": 136}
    plan = tccg_plan("abc-dca-bd", tuple(ext.values()))  # column-major A[d, c, a]: strides 1, 136, 5440
    tile = TileConfig(128, 104, 64, 4, wm=64, wn=104, wgmma=True, ws=True, tma=True)
    spec = kernel_spec(plan, False, tile=tile)
    assert plan.part.swapped and spec.b.kmajor and spec.tma_splits == (0, 208)
    g = geometry(spec.b, 104, 64, 1)
    assert (g.dims, g.strides, g.box, g.split, g.rank) == ((136, 208, 40), (10880, 272), (64, 104, 1), 208, 3)
    n0 = np.arange(0, 208 * 40, 104)[:, None, None]
    row, k = np.arange(104)[None, :, None], np.arange(136)[None, None, :]
    c0, c1, c2 = k, n0 % g.split + row, n0 // g.split
    got = 2 * c0 + c1 * g.strides[0] + c2 * g.strides[1]
    n = n0 + row
    a, c = n % ext["a"], n // ext["a"]
    assert np.array_equal(got, 2 * (k + 136 * c + 5440 * a))
    assert (c1 < g.dims[1]).all() and (c2 < g.dims[2]).all()
    assert "B_TMA_SPLIT = 208LL" in render(spec)[0] and "B_TMA_ROWS = 104" in render(spec)[0]
    assert B.build(spec, ARCH).report.spill_stores == 0
    assert geometry(spec.b, 128, 64, 1).box == (64, 16, 1)  # (128-row tiles straddle: boxes of gcd(208, 128))
    odd = tccg_plan("abc-dca-bd", (212, 24, 40, 136))  # (gcd(212, 128) = 4: not whole swizzle atoms)
    with pytest.raises(KernelError, match="no tensor map"):
        kernel_spec(odd, False, tile=dataclasses.replace(tile, bn=128, wn=128))
    assert geometry(dataclasses.replace(spec.b, kmajor=False), 104, 64, 1) is None


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


def test_tma_geometry_split_boxes(cache):
    """TCCG #2 at full size on its planned transpose flag: the big input is the kernel's A, M = (a, c) with
    a's 312 rows, and its 256-row tiles straddle values of c, so the map's boxes hold gcd(312, 256) = 8 rows.
    Enumerated over every tile, box, row and the first and last k: the map's address (coordinates k,
    r % 312 + row, r / 312 for the box's first row r) is the element A's own modes give, and rows past M
    fall outside the map's last dim (zero-filled)."""
    from gettpy.kernels.tma import geometry

    ext = (312, 24, 296, 312)
    plan = tccg_plan("abc-dca-bd", ext)  # column-major A[d, c, a]: strides 1, 312, 92352
    spec = kernel_spec(plan, False, tile=TileConfig(256, 32, 64, 4, wm=64, wn=32, wgmma=True, ws=True, tma=True,
                                                    persistent=True))
    assert not plan.part.swapped and spec.a.kmajor and spec.tma_splits == (312, 0) and spec.tma_rows == (8, 0)
    g = geometry(spec.a, 256, 64, 1)
    assert (g.dims, g.strides, g.box, g.rows) == ((312, 312, 296), (184704, 624), (64, 8, 1), 8)
    M = 312 * 296
    r = np.arange(0, -(-M // 256) * 256, 8)[:, None, None]  # (every box's first row, tile by tile)
    row, k = np.arange(8)[None, :, None], np.array([0, 311])[None, None, :]
    c1, c2 = r % g.split + row, r // g.split
    got = 2 * k + c1 * g.strides[0] + c2 * g.strides[1]
    m = r + row
    a, c = m % 312, m // 312
    inside = np.broadcast_to(m < M, got.shape)
    assert np.array_equal(got[inside], np.broadcast_to(2 * (k + 312 * c + 92352 * a), got.shape)[inside])
    assert (c1 < g.dims[1]).all() and ((c2 < g.dims[2]) == (m < M)).all()
    src = render(spec)[0]
    assert "A_TMA_SPLIT = 312LL" in src and "A_TMA_ROWS = 8" in src
    assert B.build(spec, ARCH).report.spill_stores == 0


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


def _ptx(src: str, name: str, arch: str) -> str:
    """The PTX NVRTC makes of `src` for the virtual architecture of `arch` (sm_90 -> compute_90)."""
    from cuda.bindings import nvrtc

    (prog,) = B._check(nvrtc.nvrtcCreateProgram(src.encode(), f"{name}.cu".encode(), 0, [], []), "create")
    try:
        opts = [o.encode() for o in (f"-arch={arch.replace('sm_', 'compute_')}", "-std=c++17",
                                     f"-I{B.include_dir()}")]
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        assert int(err) == 0, f"NVRTC could not compile {name}"
        (n,) = B._check(nvrtc.nvrtcGetPTXSize(prog), "ptx size")
        ptx = b" " * n
        B._check(nvrtc.nvrtcGetPTX(prog, ptx), "get ptx")
        return ptx.rstrip(b"\x00 ").decode()
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def _forced_problem(la, lb, ld, ext, dts, order, op_a=None):
    """The ContractionProblem of tests/test_gpu_prefetch.py's and test_gpu_resident.py's cases (packed tensors
    of `order`, C read)."""
    def info(name, modes, dt, op=None):
        return TensorInfo(name, tuple(modes), _strides([ext[m] for m in modes], order), dt, op=op or ops.identity)
    return ContractionProblem(info("A", la, dts[0], op_a), info("B", lb, dts[0]), info("C", ld, dts[1]),
                              info("D", ld, dts[1]), tuple(sorted(ext.items())))


def test_l2_prefetch_copies(cache):
    """TileConfig.l2_prefetch puts its size on every cp.async of the kernel (and 0 on none), on each tile the
    GPU tests run with it (tests/test_gpu_prefetch.py: 16-, 8- and 4-byte copies; mma, simt, warp-specialised),
    without changing the registers; TMA tiles and other sizes are refused."""
    import re

    from test_gpu_prefetch import CASES

    from gettpy.errors import KernelError

    copy_bytes = set()
    for name, la, lb, ld, ext, tile, dts, order in CASES:
        plan = make_plan(_forced_problem(la, lb, ld, ext, dts, order))
        arch = "sm_90a" if tile.get("wgmma") else ARCH
        regs = set()
        for l2 in (0, 64, 256):
            spec = kernel_spec(plan, True, tile=TileConfig(**tile, l2_prefetch=l2))
            assert spec.tile == TileConfig(**tile, l2_prefetch=l2)  # (as the GPU test asserts it)
            src, fname = render(spec)
            assert f"L2_PREFETCH = {l2};" in src
            copies = re.findall(r"cp\.async\.c[ag]\.shared\.global\S*", _ptx(src, fname, arch))
            want = "" if l2 == 0 else f".L2::{l2}B"
            assert copies and all(c.endswith("global" + want) for c in copies), (name, l2, set(copies))
            k = B.build(spec, arch)
            assert k.report.spill_stores == 0
            regs.add(k.report.registers)
        assert len(regs) == 1, (name, regs)
        copy_bytes |= {spec.a.vec * ITEMSIZE[spec.a.dtype], spec.b.vec * ITEMSIZE[spec.b.dtype]}
    assert {4, 8, 16} <= copy_bytes
    with pytest.raises(KernelError, match="l2_prefetch"):
        TileConfig(128, 128, 32, 3, wm=64, wn=64, l2_prefetch=32)
    with pytest.raises(KernelError, match="l2_prefetch"):
        TileConfig(128, 128, 64, 4, wm=64, wn=128, wgmma=True, ws=True, tma=True, l2_prefetch=128)


def test_resident_a_tiles_compile(cache):
    """TileConfig.resident_a on each tile the GPU tests run with it (tests/test_gpu_resident.py): accepted as
    given, compiled without spills, with shared memory as spec.py counts it (the kernel's static_assert):
    the stages hold B alone and A's panel of K rounded up to whole k-tiles comes once; the refusals name why."""
    from test_gpu_resident import CASES

    from gettpy.errors import KernelError

    for name, la, lb, ld, ext, tile, dts, order in CASES:
        plan = make_plan(_forced_problem(la, lb, ld, ext, dts, order))
        spec = kernel_spec(plan, True, tile=TileConfig(**tile, resident_a=True))
        assert spec.tile == TileConfig(**tile, resident_a=True) and not spec.a.kmajor, name
        k = B.build(spec, ARCH)
        assert k.report.spill_stores == 0, name
        t, item = spec.tile, ITEMSIZE[spec.a.dtype]
        pitch = t.bm + 16 // item
        rows = -(-spec.K // t.bk) * t.bk
        staged = kernel_spec(plan, True, tile=TileConfig(**tile))
        a_stages = t.stages * -(-t.bk * pitch * item // 16) * 16
        assert spec.smem_bytes - -(-rows * pitch * item // 16) * 16 in (staged.smem_bytes - a_stages,
                                                                         staged.smem_bytes), name
    # an op on A is applied to the panel once (the stages' transform is compiled out)
    tile = TileConfig(32, 128, 32, 3, wm=32, wn=32, resident_a=True)
    op = ops.leaky_relu(0.1)
    spec = kernel_spec(make_plan(_forced_problem("ik", "kj", "ji", {"i": 24, "j": 300, "k": 64}, ("f16", "f16"), "F",
                                                 op)), False, tile=tile)
    assert spec.op_a and spec.tile.resident_a and B.build(spec, ARCH).report.spill_stores == 0
    # refusals, each alone: A k-major, M over one tile row; a wgmma tile
    for (la, lb, ld, order), i, why in ((("ik", "jk", "ij", "C"), 24, "A is k-major"),
                                        (("ik", "kj", "ji", "F"), 40, "M = 40 is more than one tile row")):
        plan = make_plan(_forced_problem(la, lb, ld, {"i": i, "j": 300, "k": 64}, ("f16", "f16"), order))
        with pytest.raises(KernelError, match=f"no resident A panel here: {why}[^;]*; give"):
            kernel_spec(plan, False, tile=tile)
    # (a panel that would take the CTA over 227 KB: 128 rows x 240 k of f32, beside 4 stages and the epilogue)
    plan = make_plan(_forced_problem("ik", "kj", "ji", {"i": 128, "j": 3000, "k": 240}, ("f32", "f32"), "F"))
    big = TileConfig(128, 128, 16, 4, tm=8, tn=8, persistent=True, resident_a=True)
    with pytest.raises(KernelError, match="no resident A panel here: [0-9]+ bytes of shared memory, over 232448"):
        kernel_spec(plan, False, tile=big)
    with pytest.raises(KernelError, match="resident A"):
        TileConfig(128, 128, 64, 3, wm=64, wn=128, wgmma=True, resident_a=True)


def test_narrow_copies_heuristic():
    """The heuristic's narrow cp.async tiles (a side of 32 or less: TCCG #1-#8) copy with a 128-byte L2 prefetch,
    and where the mma.sync kernel can keep A's panel (M <= bm, A mn-major) they keep it, persistent;
    simt tiles, wider tiles and TMA / wgmma tiles are left as they were (results/v15_h100/call1/, call2/)."""
    from _util import packed_problem

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


def test_frag_ops_compile(cache):
    """TileConfig.frag_op_a / frag_op_b on each tile the GPU tests run with them (tests/test_gpu_frag_ops.py):
    accepted as given, compiled without spills, A both k-major and m-major in shared memory among them;
    refused without an op on that input, beside a resident panel (A), and on wgmma / simt tiles."""
    import dataclasses

    from test_gpu_frag_ops import CASES, _inf_at_zero

    from gettpy.errors import KernelError

    f = _inf_at_zero()
    kmajor = set()
    for name, la, lb, ld, ext, tile, dts, order in CASES:
        p = _forced_problem(la, lb, ld, ext, dts, order, f)
        plan = make_plan(dataclasses.replace(p, b=dataclasses.replace(p.b, op=f)))
        both = TileConfig(**tile, frag_op_a=not tile.get("resident_a"), frag_op_b=True)
        spec = kernel_spec(plan, True, tile=both)
        assert spec.tile == both and spec.op_a and spec.op_b, name
        assert B.build(spec, ARCH).report.spill_stores == 0, name
        if both.frag_op_a:
            kmajor.add(spec.a.kmajor)
        bare = make_plan(_forced_problem(la, lb, ld, ext, dts, order))
        with pytest.raises(KernelError, match="fragments need an op on B"):
            kernel_spec(bare, True, tile=TileConfig(**tile, frag_op_b=True))
        if both.frag_op_a:
            with pytest.raises(KernelError, match="fragments need an op on A"):
                kernel_spec(bare, True, tile=TileConfig(**tile, frag_op_a=True))
    assert kmajor == {True, False}
    with pytest.raises(KernelError, match="resident A panel applies"):
        TileConfig(32, 256, 64, 3, wm=32, wn=32, resident_a=True, frag_op_a=True)
    for kw in ({"frag_op_a": True}, {"frag_op_b": True}):
        with pytest.raises(KernelError, match="mma.sync"):
            TileConfig(128, 128, 64, 3, wm=64, wn=128, wgmma=True, **kw)
        with pytest.raises(KernelError, match="mma.sync"):
            TileConfig(64, 64, 16, 3, tm=4, tn=4, **kw)


def test_wgmma_tail_column(cache):
    """KernelSpec.wg_tail_n: a warp-specialised wgmma grid whose N is not a multiple of bn runs its last tile column
    on an m64n{N % bn, rounded up to 16}k16 wgmma (Cfg::WgmmaTail); whole columns, and tiles that are not warp
    specialised, keep bn. #12's heuristic 256 x 160 tile (N = 5136: 16 columns in the 33rd) keeps both widths in its
    PTX (the narrow one reachable, not a dead branch) and compiles with no spills; with N = 5120 only the wide one.
    Where B's vectors put columns in permuted slots (vs > 1), only a rest of whole slot groups gets the tail. #12's
    chunked epilogue stores D in plain 16-byte vectors (st.global.cg ran slower, tccg/results/v26_h100/call2b/)."""
    import dataclasses
    import math
    import re
    from collections import Counter

    ws = TileConfig(256, 160, 64, 4, wm=64, wn=160, wgmma=True, ws=True, tma=True, persistent=True, cluster=2,
                    chunked=True)
    for n, want in ((5136, 16), (5120, 160), (5128, 16), (5152, 32), (5160, 48), (5112, 160)):
        spec = kernel_spec(tccg_plan("ab-ac-cb", (n, 1024, 280), "f16"), False, tile=ws)
        assert spec.N == n  # (the planner puts a, the mn-contiguous side of A, along n)
        rest = spec.N % 160
        assert spec.wg_tail_n == (160 if rest == 0 else min(160, math.ceil(rest / 16) * 16)) == want, (n, spec.N)
        src = render(spec)[0]
        assert f"WG_NT = {want};" in src
        assert ("struct WgmmaTail" in src) == (want != 160)
        if want != 160:
            assert f"m64n{want}k16" in src and "m64n160k16" in src
    # (B's vectors of vs = 3 x 8 columns in permuted slots: a rest of 48 is two whole groups, 40 is not, so that
    #  tile keeps bn)
    t96 = TileConfig(128, 96, 64, 4, wm=64, wn=96, wgmma=True, ws=True, persistent=True)
    for n, want in ((5136, 48), (5128, 96)):
        spec = kernel_spec(tccg_plan("ab-ac-cb", (n, 1024, 280), "f16"), False, tile=t96)
        assert spec.wg_tail_n == 48 and spec.b.vec == 8  # (vs = 1: any rest)
        assert dataclasses.replace(spec, b=dataclasses.replace(spec.b, vs=3)).wg_tail_n == want
    plain = TileConfig(128, 128, 64, 3, wm=64, wn=128, wgmma=True)  # (not warp-specialised: no tail)
    assert kernel_spec(tccg_plan("ab-ac-cb", (1000, 1024, 280), "f16"), False, tile=plain).wg_tail_n == 128
    spec12 = kernel_spec(tccg_plan("ab-ac-cb", (5136, 5120, 5136), "f16"), False)
    assert (spec12.N, spec12.tile.bn, spec12.wg_tail_n) == (5136, 160, 16)

    def shapes(spec):
        return Counter(re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m64n\d+k16)", B.ptx(spec, ARCH)))

    # (10 a width: the two 64-row blocks' 4 k-steps of a whole k-tile and the 1 of the partial last one, K = 5136)
    assert shapes(spec12) == {"m64n160k16": 10, "m64n16k16": 10}
    # (its chunked epilogue stores D in plain 16-byte vectors, with no cache qualifier)
    stores = Counter(re.findall(r"st\.global[\w.]*", B.ptx(spec12, ARCH)))
    assert set(stores) == {"st.global.v4.u32"}, stores
    whole = kernel_spec(tccg_plan("ab-ac-cb", (5120, 5120, 5136), "f16"), False)
    assert whole.N % whole.tile.bn == 0 and shapes(whole) == {"m64n160k16": 10}
    k = B.build(spec12, ARCH)
    assert k.report.spill_stores == 0 and k.report.registers <= 168


def test_quad_direct_stores(cache):
    """The direct epilogue (KernelSpec.direct_d) of 2-byte D in vectors of 8 along n on tiles of bn a multiple of 32
    regroups each quad's pairs and stores 16-byte vectors (KernelSpec.quad_d, gett.cuh's QUAD_D): #12 f16's heuristic
    tile without the chunked epilogue, bf16 too; its PTX exchanges the words with shfl.sync.bfly, 80 a tile, and
    stores D only as st.global.v4, with no spills. f32 D and bn = 144 (not a multiple of 32) keep the pairs: no
    shuffles, no 16-byte stores."""
    import dataclasses
    import re

    heur = kernel_spec(tccg_plan("ab-ac-cb", (5136, 5120, 5136), "f16"), False)
    tile = dataclasses.replace(heur.tile, chunked=False)
    for dt in ("f16", "bf16"):
        spec = kernel_spec(tccg_plan("ab-ac-cb", (5136, 5120, 5136), dt), False, tile=tile)
        assert spec.direct_d and spec.quad_d and spec.d.vec == 8 and "QUAD_D = true," in render(spec)[0]
        ptx = B.ptx(spec, ARCH)
        # (per tile: 5 column groups of 32 x 2 row blocks x 2 fragment rows x 4 words, each once per round)
        shuffles = ptx.count("shfl.sync.bfly.b32")
        assert shuffles and shuffles % 80 == 0
        stores = re.findall(r"st\.global(?:\.\w+)*", ptx)
        assert stores and set(stores) == {"st.global.v4.u32"}
        assert B.build(spec, ARCH).report.spill_stores == 0
    others = [
        kernel_spec(tccg_plan("ab-ac-cb", (5136, 5120, 5136), "f16", out="f32"), False, tile=tile),
        kernel_spec(tccg_plan("ab-ac-cb", (5136, 5120, 5136), "f16"), False,
                    tile=dataclasses.replace(tile, bn=144, wn=144, half_atom=False)),
    ]
    for spec in others:
        assert spec.direct_d and not spec.quad_d and "QUAD_D = false," in render(spec)[0], spec
        ptx = B.ptx(spec, ARCH)
        assert "shfl.sync.bfly" not in ptx and "st.global.v4" not in ptx


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


@pytest.mark.parametrize("contraction,extents", [
    ("ab-ac-cb", (5136, 5120, 5136)),  # (#12)
    ("abc-dca-bd", (312, 24, 296, 312)),  # (#2)
    ("abcd-aebf-dfce", (72,) * 6),  # (#20)
], ids=["12", "2", "20"])
def test_heuristic_wgmma_kernels_pipelined(contraction, extents, cache):
    """TCCG #12 and #20 f16's heuristic kernels and #2's warp-specialised one (wgmma tiles) compile with their
    wgmmas pipelined: ptxas serialising them costs ~5% of the tensor pipe on #12's shape (tccg/results/v28_h100/).
    #12's kernel with an accumulator written between its two wgmma groups is serialised, so the check can fail."""
    from gettpy.plan.tiles import NARROW_WS_TILE

    # (#2's heuristic tile is the row-stream tile now, no wgmma: its warp-specialised wgmma tile, forced)
    spec = kernel_spec(tccg_plan(contraction, extents, "f16"), False,
                       tile=NARROW_WS_TILE if contraction == "abc-dca-bd" else None)
    assert spec.tile.wgmma
    k = B.build(spec, ARCH)
    assert k.arch == "sm_90a" and k.report.registers > 0 and not k.report.wgmma_serial, k.log
    if contraction == "ab-ac-cb":
        src, name = render(spec)
        between = "          if (prev) release_stage(prev);\n"  # (ws_stage: after the first group's wait)
        assert src.count(between) == 1
        bad = B.build_source(src.replace(between, between + "          acc[0] += TAcc(1);\n"), name, "sm_90a",
                             use_cache=False)
        assert bad.report.wgmma_serial, bad.log


def test_chunked_epilogue_along_m(cache):
    """The chunked epilogue of a 2-byte D along m (#12 on the partition with A and B trading roles: m = a, D's
    contiguous mode): the regions take 80 columns of 16 rows + 8 (8 fit the last stage's 32 + 20 KB, 160 do not), the
    PTX stages with stmatrix .trans and stores D only as 16-byte vectors, no spills, the wgmmas pipelined. A 4-byte D
    along m is refused with a KernelError that says so."""
    import re

    from gettpy.plan.partition import partition

    def flipped(dt, out=None):
        plan = tccg_plan("ab-ac-cb", (5136, 5120, 5136), dt, out=out)
        return make_plan(plan.problem, part=partition(plan.problem).traded())

    tile = TileConfig(256, 160, 64, 4, wm=64, wn=160, wgmma=True, ws=True, tma=True, persistent=True, chunked=True,
                      cluster=2, group_m=4)
    for dt in ("f16", "bf16"):
        spec = kernel_spec(flipped(dt), False, tile=tile)
        assert not spec.d.ncontig and spec.d.vec == 8 and not spec.a.kmajor and spec.b.kmajor
        assert spec.epi_cols == 80
        ptx = B.ptx(spec, ARCH)
        assert ptx.count("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16") > 0
        assert "stmatrix.sync.aligned.m8n8.x4.shared.b16" not in ptx
        stores = re.findall(r"st\.global(?:\.\w+)*", ptx)
        assert stores and set(stores) == {"st.global.v4.u32"}
        r = B.build(spec, ARCH).report
        assert r.spill_stores == 0 and not r.wgmma_serial
    with pytest.raises(KernelError, match="2-byte D along m"):
        kernel_spec(flipped("f16", out="f32"), False, tile=tile)


def test_half_atom(cache):
    """TileConfig.half_atom: the heuristic takes it for #12 (256 x 160, B mn-major in three column atoms, the last half
    used) and for nothing else of the suite's kind; B's second map is its own with boxes of 32 columns (rank 3 with a
    batch), passed after tmB; the kernel expects 4 KB less a stage for the half atom, compiles with no spills and
    pipelined wgmmas. Refused on tiles of other widths, without TMA, and where B is k-major."""
    import dataclasses

    from gettpy.kernels.tma import HALF_ATOM_COLS, geometry, half_atom_geometry

    plan = tccg_plan("ab-ac-cb", (5136, 5120, 5136), "f16")
    spec = kernel_spec(plan, False)
    assert spec.tile.half_atom and spec.tile.bn == 160 and not spec.b.kmajor
    g, gb = spec.tma_half_geometry, spec.tma_geometries[1]
    assert g.box == (HALF_ATOM_COLS, 64) and gb.box == (64, 64) and (g.dims, g.strides) == (gb.dims, gb.strides)
    src = render(spec)[0]
    assert "HALF_ATOM = true" in src and "gett::TmaDesc tmB, const __grid_constant__ gett::TmaDesc tmBh)" in src
    assert "&tmA, &tmB, nullptr, &tmBh);" in src  # (run's arguments: tmA, tmB, the stream-K workspace, tmBh)
    r = B.build(spec, ARCH).report
    assert r.spill_stores == 0 and not r.wgmma_serial
    plain = kernel_spec(plan, False, tile=dataclasses.replace(spec.tile, half_atom=False))
    psrc = render(plain)[0]
    assert plain.tma_half_geometry is None and "HALF_ATOM = false" in psrc
    assert "tmBh" not in psrc[psrc.index('extern "C" __global__'):]
    # (#20's 128 x 240 tile has no half-used atom: its last one holds 48 columns)
    assert not kernel_spec(tccg_plan("abcd-aebf-dfce", (72, 72, 72, 72, 72, 72), "f16"), False).tile.half_atom
    batched = tccg_plan("abc-adc-bdc", (512, 640, 64, 96), "f16")  # (batch c = 64; B[b, d, c] mn-major)
    bop = kernel_spec(batched, False).b
    hg, bg = half_atom_geometry(bop, 160, 64, batched.batch), geometry(bop, 160, 64, batched.batch)
    assert batched.batch == 64 and not bop.kmajor and hg.rank == bg.rank == 3
    assert hg.box == (32, 64, 1) and bg.box == (64, 64, 1) and (hg.dims, hg.strides) == (bg.dims, bg.strides)
    for bad in (dict(bn=128, wn=128), dict(bn=192, wn=192)):
        with pytest.raises(KernelError, match="half_atom"):
            dataclasses.replace(spec.tile, **bad)
    kplan = tccg_plan("abc-dac-bdc", (64, 512, 640, 96), "f16")  # (B k-major)
    assert kernel_spec(kplan, False).b.kmajor
    with pytest.raises(KernelError, match="half_atom=False"):
        kernel_spec(kplan, False, tile=TileConfig(128, 160, 64, 4, wm=64, wn=160, wgmma=True, ws=True, tma=True,
                                                  half_atom=True))
