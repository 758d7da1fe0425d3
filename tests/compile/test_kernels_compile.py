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
from harness import packed_strides, tccg_plan

from gettpy import ops
from gettpy.errors import KernelError
from gettpy.kernels import build as B
from gettpy.kernels.render import render
from gettpy.kernels.report import compile_suite, format_rows
from gettpy.kernels.spec import ITEMSIZE, TileConfig, _stage_bytes
from gettpy.plan import ContractionProblem, TensorInfo, make_plan
from gettpy.plan.tiles import kernel_spec

ARCH = "sm_90"


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


def test_compile_suite_rows(cache):
    rows = compile_suite([(c[0], kernel_spec(c[1], c[2])) for c in CASES[:3]] + [("refused", "KernelError: x")],
                         arch="sm_90", workers=2)
    assert rows[-1]["label"] == "refused" and rows[-1]["error"] == "KernelError: x" and rows[-1]["regs"] == -1
    rows = rows[:-1]
    assert [r["label"] for r in rows] == [c[0] for c in CASES[:3]]
    assert all(not r["error"] and r["regs"] > 0 for r in rows)
    assert "compiled" in format_rows(rows)


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
sys.path[:0] = [{tests!r}, {root!r}]
from harness import tccg_plan
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
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = _CONCURRENT_BUILD.format(tests=tests, root=os.path.dirname(tests))
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
        return TensorInfo(name, tuple(modes), packed_strides([ext[m] for m in modes], order), dt, op=op or ops.identity)
    return ContractionProblem(info("A", la, dts[0], op_a), info("B", lb, dts[0]), info("C", ld, dts[1]),
                              info("D", ld, dts[1]), tuple(sorted(ext.items())))


def test_l2_prefetch_copies(cache):
    """TileConfig.l2_prefetch puts its size on every cp.async of the kernel (and 0 on none), on each tile the
    GPU tests run with it (tests/test_gpu_prefetch.py: 16-, 8- and 4-byte copies; mma, simt, warp-specialised),
    without changing the registers; TMA tiles and other sizes are refused."""
    import re

    from harness import PREFETCH_CASES as CASES

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
    from harness import RESIDENT_CASES as CASES

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
        # (A's stages on the staged tile: padded rows, and the raw area of a flat A)
        a_stages = t.stages * _stage_bytes(staged.tile, staged.a, t.bm)
        assert staged.a.flat or a_stages == t.stages * -(-t.bk * pitch * item // 16) * 16, name
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


def test_frag_ops_compile(cache):
    """TileConfig.frag_op_a / frag_op_b on each tile the GPU tests run with them (tests/test_gpu_frag_ops.py):
    accepted as given, compiled without spills, A both k-major and m-major in shared memory among them;
    refused without an op on that input, beside a resident panel (A), and on wgmma / simt tiles."""
    import dataclasses

    from harness import FRAG_OP_CASES as CASES
    from harness import inf_at_zero

    from gettpy.errors import KernelError

    f = inf_at_zero()
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
    chunked epilogue stores D in plain 16-byte vectors (st.global.cg ran slower on the H100)."""
    import dataclasses
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


@pytest.mark.parametrize("contraction,extents", [
    ("ab-ac-cb", (5136, 5120, 5136)),  # (#12)
    ("abc-dca-bd", (312, 24, 296, 312)),  # (#2)
    ("abcd-aebf-dfce", (72,) * 6),  # (#20)
], ids=["12", "2", "20"])
def test_heuristic_wgmma_kernels_pipelined(contraction, extents, cache):
    """TCCG #12 and #20 f16's heuristic kernels and #2's warp-specialised one (wgmma tiles) compile with their
    wgmmas pipelined: ptxas serialising them costs ~5% of the tensor pipe on #12's shape on the H100.
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


def test_header_edit_changes_cache_key():
    spec = kernel_spec(tccg_plan("ab-ac-cb", (40, 24, 8), "f32"), False)
    src, _ = render(spec)
    assert "gett_offset" in src and "#include <cuda_fp16.h>" in src
    assert B.cache_key(src, ARCH) != B.cache_key(src.replace("gett_offset", "gett_offset "), ARCH)


# ------------------------------------------- the heuristic's kernels of tests/unit/test_heuristics.py compile
@pytest.mark.parametrize("dtype,compute,sa,sb", [
    ("f32", "tf32", (1, 2000), (1, 24)),  # tf32: m/n-major inputs are read element by element
    ("f16", "f32", (2, 4000), (3, 72)),  # gathered inputs (no unit stride)
    ("f16", "f32", (48, 1), (48, 1)),  # k-major vectors: one k-tile of 48
])
def test_narrow_k48_tiles_compile(dtype, compute, sa, sb):
    """The heuristic tile of a narrow GEMM over K = 48 compiles for every way its inputs are read."""
    ext = {"m": 2000, "n": 24, "k": 48}
    p = ContractionProblem(TensorInfo("A", ("m", "k"), sa, dtype), TensorInfo("B", ("n", "k"), sb, dtype), None,
                           TensorInfo("D", ("m", "n"), (1, 2000), "f32" if compute == "tf32" else dtype),
                           tuple(sorted(ext.items())), compute)
    B.build(kernel_spec(make_plan(p), False), ARCH)  # (raises KernelError if NVRTC rejects it)


def test_f32_register_caps_compile():
    """The f32 simt tiles capped for more CTAs per SM (one input k-major; a target without the f64 tensor cores)
    fit their caps without spills: compute-bound, 3 CTAs of 128 threads (168 registers); memory-bound, 2 CTAs of
    256 (128 registers)."""
    for ext, cap in (((5136, 5120, 5136), 168), ((513, 4096, 36), 128)):
        spec = kernel_spec(tccg_plan("ab-ac-cb", ext, "f32"), False, wgmma=False)
        assert spec.tile.tm > 0 and 65536 // (spec.tile.threads * spec.tile.min_blocks) // 8 * 8 == cap
        r = B.build(spec, ARCH).report
        assert r.registers <= cap and r.spill_stores == 0, (ext, spec.tile, r)


def test_kmajor_lines_on_narrow_tiles_compile():
    """#2's row-stream tile (f16) and its one wave of 24 x 704 simt tiles (f32) compile without spills, the
    latter within the registers its threads allow."""
    p2 = tccg_plan("abc-dca-bd", (312, 24, 296, 312))
    assert B.build(kernel_spec(p2, False), ARCH).report.spill_stores == 0
    f2 = kernel_spec(tccg_plan("abc-dca-bd", (312, 24, 296, 312), "f32"), False)
    r2 = B.build(f2, ARCH).report
    assert 0 < r2.registers <= 65536 // f2.tile.threads and r2.spill_stores == 0


def test_d_run_tiles_compile():
    """The ccsd_t tiles cut to D's run of 24 (96 rows, the epilogue run by run) compile without spills."""
    ext = (24, 16, 16, 24, 16, 16, 24)
    for con in ("abcdef-degb-gfac", "abcdef-dega-gfbc"):
        spec = kernel_spec(tccg_plan(con, ext, "f16"), False)
        assert spec.d.run == 24 and B.build(spec, ARCH).report.spill_stores == 0


def test_tma_heuristic_compile():
    """#12's heuristic TMA tile (persistent, chunked epilogue) compiles without spills."""
    spec = kernel_spec(tccg_plan("ab-ac-cb", (5136, 5120, 5136), "f16"), False)
    assert spec.tile.tma and B.build(spec, ARCH).report.spill_stores == 0


def test_serpentine_compile():
    """The heuristic's serpentine tile (#12 f16) compiles without spills."""
    serp = kernel_spec(tccg_plan("ab-ac-cb", (5136, 5120, 5136), "f16"), False)
    assert serp.tile.serpentine and B.build(serp, ARCH).report.spill_stores == 0
