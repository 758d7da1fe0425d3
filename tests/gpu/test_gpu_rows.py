"""GPU tests of the row-stream tile (kernels/spec.py TileConfig.rows, gett.cuh's Rows; sm_90): TCCG #2's family
(C[a, b, c] = A[d, c, a] B[b, d], column-major) and other long narrow GEMMs whose wide input is read in whole
k-major rows, through `gettpy.einsum` (the heuristic's tile) and with the tile forced in every part count, depth,
unit shape and width, with C, alpha, beta and ops, on ragged extents (P, Q and N not multiples of the unit, K % 16 =
8, rows of an even number of 16-byte units, copied one by one); every element of D against numpy float64."""
from __future__ import annotations

import pytest
from harness import ROWS_SHAPES as SHAPES
from harness import check_tccg2, run_forced, sm90, tccg2_family

from gettpy import ops
from gettpy.errors import KernelError

pytestmark = pytest.mark.gpu

EINSUM = [  # (id, extents a, b, c, d of abc-dca-bd, input dtype, output dtype)
    ("tccg2_f16", (312, 24, 296, 312), "f16", "f16"),
    ("tccg2_f16_to_f32", (312, 24, 296, 312), "f16", "f32"),
    ("tccg2_bf16", (312, 24, 296, 312), "bf16", "bf16"),
    ("ragged_p_q_ktail", (133, 24, 260, 264), "f16", "f16"),
    ("even_pitch_n32", (136, 32, 250, 256), "f16", "f16"),
    ("p_not_8_f32_out", (300, 24, 173, 296), "f16", "f32"),
]


@pytest.mark.parametrize("name,ext,din,dout", EINSUM, ids=[c[0] for c in EINSUM])
def test_rows_through_einsum(name, ext, din, dout):
    """gettpy.einsum on the heuristic's tile: the row-stream tile on sm_90 (P = a's extent, units of 8 values of a
    where a divides by 8, else 1), every element against float64."""
    import gettpy
    from gettpy.plan import make_plan
    from gettpy.plan.tiles import kernel_spec

    if not sm90():
        pytest.skip("the row-stream tile runs on sm_90")
    a, b, d, ha, hb, p = tccg2_family(ext, din, dout)
    ea = ext[0]
    spec = kernel_spec(make_plan(p), False)
    assert spec.tile.rows == 4 and spec.rows_p == ea and spec.tile.rows_run == (8 if ea % 8 == 0 else 1)

    gettpy.einsum("dca,bd->abc", a, b, out=d)
    check_tccg2(d, ha, hb, din, dout)


def _rows(bm=64, bn=24, stages=4, parts=4, run=8):
    from gettpy.kernels.spec import TileConfig

    return TileConfig(bm, bn, 16, stages, wm=16, wn=bn, persistent=True, rows=parts, rows_run=run)


def _forced(rng, ext, tile, modes=("dca", "bd", "abc"), **kw):
    """run_forced (#2's modes by default), column-major, on the partition whose kernel A is the wide input (the
    planner's, or with A and B trading roles where an op on an input turns the long narrow rule off)."""
    try:
        return run_forced(rng, *modes, ext, tile, order="F", **kw)
    except KernelError as e:
        if "row-stream" not in str(e):
            raise
    return run_forced(rng, *modes, ext, tile, order="F", swap=True, **kw)


@pytest.mark.parametrize("bm,bn,stages,parts,run", SHAPES, ids=[f"{m}x{n}s{s}p{p}r{r}" for m, n, s, p, r in SHAPES])
def test_rows_forced_shapes(bm, bn, stages, parts, run, rng):
    ext = {"a": 104, "b": min(bn, 24) if bn >= 16 else 8, "c": 75, "d": 264}  # (Q = 75: a partial unit; K % 16 = 8)
    spec = _forced(rng, ext, _rows(bm, bn, stages, parts, run), dt_out="f32")
    assert spec.tile.rows == parts and spec.rows_p == 104


@pytest.mark.parametrize("din,dout", [("f16", "f16"), ("f16", "f32"), ("bf16", "bf16"), ("bf16", "f32")])
def test_rows_with_c_alpha_beta(din, dout, rng):
    ext = {"a": 96, "b": 24, "c": 40, "d": 312}
    _forced(rng, ext, _rows(), dt_in=din, dt_out=dout, with_c=True, alpha=0.75, beta=-1.25)


@pytest.mark.parametrize("which", ["a", "b", "d", "all"])
def test_rows_with_ops(which, rng):
    """Ops on A (its fragments), B (as it is staged), C and D (the stores), rounded as the other tiles round them."""
    g = ops.leaky_relu(0.1)
    o = {"a": (g, None, None, None), "b": (None, g, None, None), "d": (None, None, None, g), "all": (g, g, g, g)}[which]
    ext = {"a": 88, "b": 24, "c": 33, "d": 320}
    _forced(rng, ext, _rows(), with_c=which == "all", alpha=1.0, beta=0.5 if which == "all" else 0.0, ops=o)


def test_rows_one_i(rng):
    """P = 1 (m one stride-K term: the wide input's rows back to back along m): units of 1 x 64 rows, scalar stores."""
    spec = _forced(rng, {"k": 120, "b": 24, "c": 4000}, _rows(run=1), modes=("kc", "bk", "cb"))
    assert spec.rows_p == 1 and spec.rows_dvec == 1
