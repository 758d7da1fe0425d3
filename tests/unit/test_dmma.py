"""The f64 tensor-core path for f32 inputs (KernelSpec.tf32 = 2), host side: when the heuristic takes it
(compute-bound f32 GEMMs of at least 128 x 128 on an sm_90 target, both inputs readable in 16-byte vectors,
k-major or m / n-major), the schedule's k-first packs it needs, the spec's checks, and its kernels compiling
without spills. The GPU results are checked against float64 in tests/gpu/test_gpu_dmma.py."""
from __future__ import annotations

import pytest

from gettpy.errors import KernelError
from gettpy.kernels.spec import TileConfig
from gettpy.plan.schedule import make_schedule
from gettpy.plan.tiles import DMMA_TILE, choose_tile, kernel_spec
from tccg.runner import case_problem
from tccg.suite import parse_cases


@pytest.mark.parametrize("M,N,K,kw,want", [
    (5184, 5184, 5184, {}, True),
    (5120, 5136, 5136, {"compute": "f64"}, True),  # f32 inputs summed in f64: the same path
    (5184, 5184, 5184, {"wgmma": False}, False),  # not an sm_90 target
    (5184, 5184, 5184, {"dmma": False}, False),  # an input only readable as 4-byte copies
    (5184, 5184, 5184, {"semiring": True}, False),
    (5184, 5184, 5184, {"compute": "tf32"}, False),  # the opt-in TF32 modes keep their tiles
    (5184, 96, 5184, {}, False),  # a side under 128
    (600, 600, 600, {}, False),  # not compute-bound
])
def test_choose_tile_takes_the_f64_cores(M, N, K, kw, want):
    t = choose_tile(M, N, K, dtype="f32", **kw)
    assert (t == DMMA_TILE) == want
    assert choose_tile(M, N, K, dtype="f16", compute="f32") != DMMA_TILE


def test_tccg_f32_plans():
    """Of the 48 in f32 (order F), the compute-bound squares #12 and #20-#30 run on the f64 tensor cores on
    DMMA_TILE: both inputs k-major with 16-byte vectors, an f64 accumulator (the kernel's compute type), packs
    of the inputs that are not k-contiguous made k first. The split cores of #13 (74 slices of c) and #14 (52)
    run on DMMA_SPLIT_TILE, and #15-#18 (~300 x 92352 x ~300, compute-bound at the FFMA rate only) on DMMA_TILE,
    reading their inputs in 16-byte vectors where they lie (#13's B n-major). f16 plans never take the path."""
    from gettpy.plan.split import DMMA_SPLIT_TILE

    bm, bn, bk, st, wm, wn, blocks = DMMA_SPLIT_TILE
    split_tile = TileConfig(bm, bn, bk, st, wm=wm, wn=wn, min_blocks=blocks)
    on, split = [], {}
    for case in parse_cases("1-48"):
        for dt in ("f32", "f16"):
            s = make_schedule(case_problem(case, dt, dt, "F"))
            spec = kernel_spec(s.core, False)
            if spec.tf32 == 2:
                on.append((case.num, dt))
                assert spec.compute == "f64" and s.core.problem.compute == "f32"
                assert (spec.a.vec, spec.b.vec) == (4, 4)
                if s.split_mode:
                    assert spec.tile == split_tile
                    split[case.num] = (s.split_mode, s.core.batch)
                    continue
                assert spec.tile == DMMA_TILE
                if case.num in (15, 16, 17, 18):  # (planned for the simt tile: no packs, read where they lie)
                    assert s.pack_a is None and s.pack_b is None
                    continue
                assert spec.a.kmajor and spec.b.kmajor
                for pk in (s.pack_a, s.pack_b):
                    assert pk is None or pk.modes[0] in s.core.part.k
            else:
                assert spec.compute == ("f64" if dt == "f64" else "f32")
    assert on == [(n, "f32") for n in (*range(12, 19), *range(20, 31))]
    assert split == {13: ("c~split", 74), 14: ("c~split", 52)}


def test_spec_checks():
    from dataclasses import replace

    p = case_problem(parse_cases("20")[0], "f32", "f32")
    spec = kernel_spec(make_schedule(p).core, False)
    assert spec.tf32 == 2
    with pytest.raises(KernelError, match="f64"):
        replace(spec, compute="f32")  # the f64 path and only it accumulates in f64
    with pytest.raises(KernelError, match="tf32"):
        replace(spec, tf32=3, compute="f64")


def test_without_f64_cores_f32_stays_on_simt():
    """make_schedule(f64_cores=False), a GPU other than sm_90: no f32 plan of the 48 takes the f64 tensor cores,
    and the squares keep their simt packs (m / n first: #12's B, #28's A and B); the GPU executor asks its
    device (the cache's _f64_cores), the CPU executor plans as for the H100."""
    from gettpy.plan.cache import _f64_cores

    for case in parse_cases("1-48"):
        s = make_schedule(case_problem(case, "f32", "f32", "F"), f64_cores=False)
        assert kernel_spec(s.core, False, wgmma=False).tf32 == 0
        if case.num in (12, 28):
            for pk in filter(None, (s.pack_a, s.pack_b)):
                assert pk.modes[0] not in s.core.part.k
    assert _f64_cores("numpy")


def test_safe_tile_of_the_f64_path_is_simt():
    """The fallback tile of a kernel that does not build (the f64 path below sm_90) is a simt tile, which
    every device runs, computing the same contraction in f32."""
    from gettpy.backends.gpu import safe_tile

    spec = kernel_spec(make_schedule(case_problem(parse_cases("20")[0], "f32", "f32")).core, False)
    assert spec.tf32 == 2
    safe = safe_tile(spec)
    assert not safe.mma and safe.tm > 0
    fallback = kernel_spec(make_schedule(case_problem(parse_cases("20")[0], "f32", "f32")).core, False, tile=safe)
    assert fallback.tf32 == 0 and fallback.compute == "f32"


def test_mn_major_inputs_read_in_place():
    """ik,kj->ij in numpy's order at 1030 x 1100 x 1028 (in no benchmark), B's rows along j. In TF32 the tile reads
    B j-major in 16-byte vectors where it lies. In f32 on the f64 tensor cores, compute-bound, B is packed k first
    and read k-major (the ldmatrix fragments). A long sum over a small output in f32 (km,kn->mn, 40 x 44 x
    100000): the split cores on the f64 tensor cores read both inputs m / n-major in place."""
    from dataclasses import replace

    from tccg.suite import Case

    p = case_problem(Case(0, "gemm", "ij-ik-kj", {"i": 1030, "j": 1100, "k": 1028}), "f32", "f32", "C")
    s = make_schedule(replace(p, compute="tf32"))
    spec = kernel_spec(s.core, False)
    assert spec.tf32 == 1 and s.pack_a is None and s.pack_b is None
    assert {(spec.a.kmajor, spec.a.vec), (spec.b.kmajor, spec.b.vec)} == {(True, 4), (False, 4)}
    s = make_schedule(p)
    spec = kernel_spec(s.core, False)
    assert spec.tf32 == 2 and (s.pack_a is None) != (s.pack_b is None)
    assert (spec.a.kmajor, spec.a.vec, spec.b.kmajor, spec.b.vec) == (True, 4, True, 4)
    s = make_schedule(case_problem(Case(0, "long_k", "mn-km-kn", {"m": 40, "n": 44, "k": 100000}), "f32", "f32", "C"))
    spec = kernel_spec(s.core, False)
    assert s.split_mode and spec.tf32 == 2 and s.pack_a is None and s.pack_b is None
    assert (spec.a.kmajor, spec.a.vec, spec.b.kmajor, spec.b.vec) == (False, 4, False, 4)


def test_unaligned_inputs_are_packed_and_padded():
    """wcsb-awc-asb (an MPS environment update) at odd extents, compute-bound in f32: neither input has 16-byte
    vectors along k (A's m run of 7 x 489 has none either), so the f64 tensor-core core reads both as packs, k first
    and zero-filled along k from 487 to 488: both k-major in 16-byte vectors."""
    from tccg.suite import Case

    ext = {"a": 487, "b": 485, "c": 489, "s": 4, "w": 7}
    s = make_schedule(case_problem(Case(0, "mps", "wcsb-awc-asb", ext), "f32", "f32", "C"))
    spec = kernel_spec(s.core, False)
    assert spec.tf32 == 2 and s.pack_a is not None and s.pack_b is not None
    assert dict(s.pad_ext)["a"] == 488 and s.pack_a.modes[0] == s.pack_b.modes[0] == "a"
    assert (spec.a.kmajor, spec.a.vec, spec.b.kmajor, spec.b.vec) == (True, 4, True, 4)


def test_tf32_plans_read_permuted_and_resident_mn_major_stages():
    """The layouts of tests/gpu/test_gpu_tf32.py's permuted / resident case: B[k, p, q] (q fastest) under D[p, q, i]
    (p fastest) is read n-major in vectors along q into slot-permuted stages (vs = 4); a narrow A[i, k] (i fastest,
    24 rows) is one resident m-major panel; both on TF32 tiles, unpacked."""
    from gettpy import ops
    from gettpy.plan.problem import ContractionProblem, TensorInfo

    for compute, mode in (("tf32", 1), ("3xtf32", 3)):
        a = TensorInfo("A", ("i", "k"), (1, 300), "f32")
        b = TensorInfo("B", ("k", "p", "q"), (512, 128, 1), "f32")
        d = TensorInfo("D", ("p", "q", "i"), (1, 4, 512), "f32")
        s = make_schedule(ContractionProblem(a, b, None, d, (("i", 300), ("k", 129), ("p", 4), ("q", 128)), compute))
        spec = kernel_spec(s.core, False)
        assert spec.tf32 == mode and s.pack_a is None and s.pack_b is None
        assert {(x.kmajor, x.vec, x.vs) for x in (spec.a, spec.b)} == {(False, 4, 1), (False, 4, 4)}
        a = TensorInfo("A", ("i", "k"), (1, 24), "f32")
        b = TensorInfo("B", ("k", "j"), (5000, 1), "f32", op=ops.relu)
        d = TensorInfo("D", ("i", "j"), (5000, 1), "f32")
        s = make_schedule(ContractionProblem(a, b, None, d, (("i", 24), ("j", 5000), ("k", 301)), compute))
        spec = kernel_spec(s.core, False)
        assert spec.tf32 == mode and spec.tile.resident_a and not spec.a.kmajor and not spec.b.kmajor


def test_dmma_below_the_tensor_core_intensity():
    """`passes._dmma_simt`: f32 GEMMs compute-bound at the FFMA rate (not at the tensor cores'), at least 128 on
    each side, both inputs in 16-byte vectors, lower to DMMA_TILE; the simt tile stays on a target without the f64
    tensor cores, or a memory-bound shape (odd rows and sides under 128: `test_dmma_small`). Shapes in no benchmark."""
    from harness import dense_problem, extents_of

    def spec(eq, shapes, wgmma=True):
        return kernel_spec(make_schedule(dense_problem(eq, extents_of(eq, shapes), "f32", "C")).core, False,
                           wgmma=wgmma)

    for eq, shapes in (("zab,zbc->zac", ((7, 1203, 60), (7, 60, 1500))), ("abk,kc->abc", ((41, 57, 116), (116, 1300))),
                       ("ik,kj->ij", ((2000, 44), (44, 3000)))):
        assert spec(eq, shapes).tile == DMMA_TILE, (eq, shapes)
        assert spec(eq, shapes, wgmma=False).tile.tm > 0
    assert spec("ik,kj->ij", ((2000, 24), (24, 3000))).tile.tm > 0        # (K = 24: memory-bound)


@pytest.mark.parametrize("eq,shapes,want", [
    # one input in 16-byte vectors, the other in element reads (rows of 1001 / 301 f32): DMMA_SMALL
    ("zkm,zkn->zmn", ((9, 223, 700), (9, 223, 1001)), (64, 64)),
    ("mk,kn->mn", ((3001, 301), (301, 2000)), (64, 64)),
    # a side of 65..128 covered by one 128-wide tile (the other input read once)
    ("ik,kj->ij", ((100, 400), (400, 30000)), (128, 64)),
    ("zkm,zkn->zmn", ((5, 333, 1501), (5, 333, 96)), (64, 128)),
    # kept on the simt tiles: both inputs in 8-byte pieces (rows of 606 and 702 f32); a short side the simt tile
    # covers exactly (72 rows, not 128 of which 56 padding); a side of 32 or less; memory-bound at the FMA rate
    ("zmk,zkn->zmn", ((11, 301, 606), (11, 606, 702)), None),
    ("zkm,zkn->zmn", ((9, 223, 72), (9, 223, 30001)), None),
    ("zkm,zkn->zmn", ((9, 223, 30), (9, 223, 30001)), None),
    ("zkm,zkn->zmn", ((9, 20, 701), (9, 20, 1000)), None),
])
def test_dmma_small(eq, shapes, want):
    """`passes._dmma_small`: f32 GEMMs under `dmma_tile`'s conditions (a side under 128, or one input in element
    reads) run on the f64 tensor cores where one input at least has 16-byte vectors and the DMMA tile's padded flops
    at its peak undercut the simt tile's at the FMA peak. Shapes in no benchmark."""
    from harness import dense_problem, extents_of

    for wgmma in (True, False):
        spec = kernel_spec(make_schedule(dense_problem(eq, extents_of(eq, shapes), "f32", "C")).core, False,
                           wgmma=wgmma)
        if want is None or not wgmma:
            assert spec.tile.tm > 0 and spec.tf32 == 0, (eq, shapes, spec.tile)
            continue
        assert spec.tf32 == 2 and spec.compute == "f64" and (spec.tile.bm, spec.tile.bn) == want, (eq, shapes)
        assert spec.tile.threads == 128 and spec.tile.min_blocks >= 2


@pytest.mark.parametrize("M,N,K,want", [
    (2048, 2048, 2048, True),  # compute-bound at the f64 FMA rate: the f64 tensor cores
    (563, 1004, 364, True),
    (2048, 96, 2048, False),  # a side under 128
    (300, 300, 8, False),  # memory-bound
])
def test_f64_inputs_take_the_f64_cores(M, N, K, want):
    """f64 inputs of an f64 contraction at least 128 a side and compute-bound at the FMA rate lower to DMMA_F64_TILE
    (its 8-byte stages and accumulators keep 3 CTAs an SM), both read in 16-byte vectors; else the simt path."""
    from harness import dense_problem

    from gettpy.plan.heuristic import DMMA_F64_TILE

    spec = kernel_spec(make_schedule(dense_problem("ik,jk->ij", {"i": M, "j": N, "k": K}, "f64", "C")).core, False)
    assert (spec.tile == DMMA_F64_TILE and spec.tf32 == 2) == want, spec.tile
    assert spec.compute == "f64" and spec.a.dtype == "f64"
    if want:
        assert spec.smem_bytes * 3 <= 228 * 1024 and spec.a.vec == spec.b.vec == 2

