"""CPU tests of the row-stream tile (kernels/spec.py TileConfig.rows, `rows_split`, gett.cuh's Rows): the split of
the wide input's m map against every row's offset from the tensor's own strides, the units covering every row and
every element of D once, the heuristic's choice (plan/tiles.py `_row_stream`), the refusals, and the kernels of the
GPU tests compiled by NVRTC for sm_90 without spills (no GPU needed)."""
from __future__ import annotations

import math
import os

import numpy as np
import pytest

from gettpy import ops
from gettpy.errors import KernelError
from gettpy.kernels.spec import TileConfig, rows_split
from gettpy.layouts.descriptor import build_dim_map
from gettpy.layouts.emulate import gett_offset
from gettpy.plan import ContractionProblem, TensorInfo, make_plan
from gettpy.plan.tiles import kernel_spec


def _plan(ma, mb, md, ext, din="f16", dout="f16", op_a=None):
    def ti(name, modes, dt, op=None):
        shape = [ext[m] for m in modes]
        st = np.cumprod([1] + shape[:-1]).tolist()  # column-major
        return TensorInfo(name, tuple(modes), tuple(int(x) for x in st), dt, op=op or ops.identity)

    return make_plan(ContractionProblem(ti("A", ma, din, op_a), ti("B", mb, din), None, ti("D", md, dout),
                                        tuple(sorted(ext.items()))))


def _rows(bm=64, bn=24, stages=4, parts=4, run=8):
    return TileConfig(bm, bn, 16, stages, wm=16, wn=bn, persistent=True, rows=parts, rows_run=run)


TCCG2 = {"a": 312, "b": 24, "c": 296, "d": 312}


@pytest.mark.parametrize("extents,modes,k,want", [
    ((312, 296), (92352, 312), 312, 312),     # TCCG #2's A[d, c, a] with m = (a, c)
    ((7, 5, 9), (360, 2520, 40), 40, 35),     # i two terms, then j with stride K
    ((5, 9), (40, 200), 40, 1),               # m one stride-K term: P = 1
    ((312, 296), (312, 92352), 312, None),    # m = (c, a): j's stride is not K
    ((7, 5), (1, 41), 40, None),              # the last stride is not K
])
def test_rows_split_against_every_row(extents, modes, k, want):
    """rows_split's P, and for every m: offset(m) = offset(m % P) + (m // P) K, from the modes' own strides."""
    dm = build_dim_map(tuple(extents), tuple(modes))
    p = rows_split(dm, k)
    assert p == want
    if p is None:
        return
    g = np.arange(dm.extent)
    coords = np.unravel_index(g, extents, order="F")
    own = sum(c * s for c, s in zip(coords, modes, strict=True))  # (the tensor's own strides, not the map)
    np.testing.assert_array_equal(own, gett_offset(dm, g % p) + (g // p) * k)


@pytest.mark.parametrize("p,q,bm,run,grid", [(312, 296, 64, 8, 132), (133, 250, 64, 1, 132), (104, 75, 32, 8, 7),
                                             (1, 4000, 64, 1, 100), (96, 40, 128, 16, 3)])
def test_rows_units_cover_every_row_and_output_once(p, q, bm, run, grid):
    """gett.cuh's Rows walk, enumerated: CTA x's units x, x + grid, ...; unit u holds i in [ib run, + run) by j in
    [jb uc, + uc) (uc = bm / run, j-blocks first); its stage slot a uc + jj; its stores (n, jj) runs of i. Every row
    (i, j) of m = i + P j is loaded into exactly one slot of one unit, and each is stored once."""
    uc = bm // run
    nj = -(-q // uc)
    units = -(-p // run) * nj
    seen = np.zeros(p * q, dtype=int)
    for x in range(min(grid, units)):
        for t in range((units - 1 - x) // grid + 1):
            u = x + t * grid
            ib, jb = divmod(u, nj)
            slots = set()
            for a in range(min(run, p - ib * run)):
                for jj in range(min(uc, q - jb * uc)):
                    slot = a * uc + jj
                    assert slot < bm and slot not in slots
                    slots.add(slot)
                    seen[ib * run + a + p * (jb * uc + jj)] += 1
    assert (seen == 1).all()


def test_rows_heuristic():
    """#2 f16 and f16 -> f32 on sm_90: the row-stream tile (P = 312, units of 8 x 8 rows, 4 stages, K in 4 parts, D's
    16-byte vectors along a); not without wgmma (another device), nor for f32, nor with an op on A (the long narrow
    rule is off then), nor where the wide input's k is two stride terms."""
    for dout in ("f16", "f32"):
        spec = kernel_spec(_plan("dca", "bd", "abc", TCCG2, "f16", dout), False)
        assert spec.tile == _rows() and spec.rows_p == 312 and spec.grid == 39 * 37 and spec.tile.threads == 512
        assert spec.rows_pitch == 624 and spec.rows_dvec == (8 if dout == "f16" else 4)
    assert not kernel_spec(_plan("dca", "bd", "abc", TCCG2), False, wgmma=False).tile.rows
    assert not kernel_spec(_plan("dca", "bd", "abc", TCCG2, "f32", "f32"), False).tile.rows
    assert not kernel_spec(_plan("dca", "bd", "abc", TCCG2, op_a=ops.leaky_relu(0.1)), False).tile.rows
    split_k = kernel_spec(_plan("dae", "bde", "ab", {"a": 33792, "b": 24, "d": 16, "e": 20}), False).tile
    assert split_k.ws and not split_k.rows


def test_rows_refused():
    """KernelSpec names why a row-stream tile cannot run: rows that are not whole, B's fragments past the register
    budget, N wider than bn, too much shared memory; TileConfig refuses other options beside it."""
    with pytest.raises(KernelError, match="row-stream.*contiguous"):
        kernel_spec(_plan("dae", "bde", "ab", {"a": 33792, "b": 24, "d": 16, "e": 20}), False, tile=_rows())
    with pytest.raises(KernelError, match="registers"):
        kernel_spec(_plan("dca", "bd", "abc", TCCG2), False, tile=_rows(parts=1))
    with pytest.raises(KernelError, match="wider than bn"):
        kernel_spec(_plan("dca", "bd", "abc", TCCG2), False, tile=_rows(bn=16))
    with pytest.raises(KernelError, match="shared memory"):
        kernel_spec(_plan("dca", "bd", "abc", {"a": 312, "b": 24, "c": 296, "d": 1016}), False, tile=_rows())
    for bad in ({"wgmma": True}, {"l2_prefetch": 128}, {"persistent": False}, {"rows": 3}, {"rows_run": 3}):
        kw = dict(bm=64, bn=24, bk=16, stages=4, wm=16, wn=24, persistent=True, rows=4, rows_run=8) | bad
        with pytest.raises(KernelError, match="row-stream"):
            TileConfig(**kw)


@pytest.fixture(scope="module")
def nvrtc_cache(tmp_path_factory):
    pytest.importorskip("cuda.bindings.nvrtc")
    from gettpy.kernels import build as B

    try:
        B.include_dir()
    except Exception:  # noqa: BLE001
        pytest.skip("no CUDA headers (nvidia-cuda-runtime wheel) for NVRTC")
    old = os.environ.get("GETTPY_CACHE_DIR")
    os.environ["GETTPY_CACHE_DIR"] = str(tmp_path_factory.mktemp("gettpy-cache"))
    yield B
    if old is None:
        os.environ.pop("GETTPY_CACHE_DIR", None)
    else:
        os.environ["GETTPY_CACHE_DIR"] = old


def _forced(plan, tile):
    """kernel_spec with `tile` forced on the partition whose kernel A is the wide input: the planner's, or the traded
    one where the long narrow rule is off (small M, an op on an input), as tests/test_gpu_rows.py `_forced` runs."""
    from gettpy.plan.partition import partition

    try:
        return kernel_spec(plan, False, tile=tile)
    except KernelError:
        return kernel_spec(make_plan(plan.problem, part=partition(plan.problem).traded()), False, tile=tile)


def _gpu_test_specs():
    """The row-stream specs tests/test_gpu_rows.py launches (forced tiles on #2's modes and the P = 1 case), and the
    heuristic's for #2 in f16, bf16 and f16 -> f32."""
    from test_gpu_rows import SHAPES

    out = [kernel_spec(_plan("dca", "bd", "abc", TCCG2, d, o), False) for d, o in (("f16", "f16"), ("bf16", "bf16"),
                                                                                   ("f16", "f32"))]
    for bm, bn, stages, parts, run in SHAPES:
        ext = {"a": 104, "b": min(bn, 24) if bn >= 16 else 8, "c": 75, "d": 264}
        out.append(_forced(_plan("dca", "bd", "abc", ext, "f16", "f32"), _rows(bm, bn, stages, parts, run)))
    out.append(_forced(_plan("dca", "bd", "abc", {"a": 88, "b": 24, "c": 33, "d": 320}, op_a=ops.leaky_relu(0.1)),
                       _rows()))
    out.append(_forced(_plan("kc", "bk", "cb", {"k": 120, "b": 24, "c": 4000}), _rows(run=1)))
    return out


def test_rows_kernels_compile(nvrtc_cache):
    """Every row-stream kernel of the GPU tests compiles for sm_90 (its shared memory as KernelSpec counts it: the
    wrapper's static_assert) without spills, within 128 registers a thread (512 threads a CTA)."""
    for spec in _gpu_test_specs():
        r = nvrtc_cache.build(spec, "sm_90").report
        assert r.spill_stores == 0 and 0 < r.registers <= 65536 // spec.tile.threads, (spec.tile, r)
        assert spec.smem_bytes <= 227 * 1024 and math.ceil(spec.grid) >= 1
