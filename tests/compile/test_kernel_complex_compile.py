"""NVRTC compiles of the complex kernel (gettpy.plan.complex_paths.fused_spec) for sm_90, no GPU needed: every
listed tile of complex64 and complex128, both memory orders, conj on A and C with C read, mixed real / complex
operands, a batch mode, partial tiles; no register spills, no stack, and the ptxas register count under the
launch bound's cap. Skipped without cuda-bindings' NVRTC or the CUDA headers."""
from __future__ import annotations

import pytest
from harness import packed_strides

from gettpy import ops
from gettpy.kernels import build as B
from gettpy.kernels.spec import TileConfig
from gettpy.plan import ContractionProblem, TensorInfo, make_plan
from gettpy.plan.complex_paths import FUSED_TILES, fused_spec


def _plan(sub, ext, dts, order="C", op_a=None, op_c=None, with_c=False, compute=""):
    (a, b, c), (da, db, dd) = sub.split(","), dts

    def ti(name, modes, dt, op=None):
        return TensorInfo(name, tuple(modes), packed_strides([ext[m] for m in modes], order), dt, op=op or ops.identity)

    return make_plan(ContractionProblem(ti("A", a, da, op_a), ti("B", b, db), ti("C", c, dd, op_c) if with_c else None,
                                        ti("D", c, dd), tuple(sorted(ext.items())), compute))


def _check(spec):
    k = B.build(spec, "sm_90")
    r = k.report
    assert r.spill_stores == 0 and r.spill_loads == 0 and r.stack == 0, (spec.tile, r)
    assert 0 < r.registers <= 65536 // spec.tile.threads, (spec.tile, r)
    return r


TILES = [(dt, t) for dt in ("c64", "c128") for t in FUSED_TILES[dt]]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dt,t", TILES, ids=[f"{d}-{t[0]}x{t[1]}" for d, t in TILES])
def test_every_tile_compiles_without_spills(dt, t, order):
    plan = _plan("mk,kn,mn", {"m": 515, "n": 517, "k": 513}, (dt,) * 3, order, op_a=ops.conj, op_c=ops.conj,
                 with_c=True)
    spec = fused_spec(plan, read_c=True, tile=TileConfig(*t[:4], tm=t[4], tn=t[5]))
    assert spec.read_c and spec.op_c == "gett::conj(x)"
    _check(spec)


@pytest.mark.parametrize("dts,compute", [(("f32", "c64", "c64"), "c64"), (("c64", "f64", "c128"), "c128"),
                                         (("c64", "c64", "c128"), "c128")])
def test_mixed_types_compile(dts, compute):
    """A real operand read as x + 0i, a complex64 operand summed in complex128."""
    plan = _plan("bik,bkj,bij", {"b": 3, "i": 33, "j": 17, "k": 9}, dts, "F", compute=compute)
    spec = fused_spec(plan, read_c=False)
    assert spec.compute == compute and spec.batch == 3
    _check(spec)


def test_tensor_contraction_vectors():
    """A contraction over two modes with even extents: complex64 vectors of two along the contiguous runs."""
    plan = _plan("acd,dcb,ab", {"a": 64, "b": 48, "c": 16, "d": 8}, ("c64",) * 3, "C")
    spec = fused_spec(plan, read_c=False)
    assert max(spec.a.vec, spec.b.vec, spec.d.vec) == 2
    _check(spec)
