"""The complex kernel's spec (gettpy.plan.complex_paths.fused_spec), pure Python: its tile, how it reads each
operand, which ops it fuses and what it refuses; and KernelSpec's rules for complex compute types."""
from __future__ import annotations

import dataclasses

import pytest
from harness import packed_strides

from gettpy import ops
from gettpy.errors import KernelError
from gettpy.kernels.render import render
from gettpy.kernels.spec import ITEMSIZE, TileConfig
from gettpy.plan import ContractionProblem, TensorInfo, make_plan
from gettpy.plan.complex_paths import FUSED_TILES, fused_spec, fused_tile
from gettpy.plan.simt import MIN_CTAS_PER_SM


def _plan(sub, ext, dts, order="C", op_a=None, op_b=None, op_c=None, with_c=False, compute=""):
    (a, b, c), (da, db, dd) = sub.split(","), dts

    def ti(name, modes, dt, op=None):
        return TensorInfo(name, tuple(modes), packed_strides([ext[m] for m in modes], order), dt, op=op or ops.identity)

    p = ContractionProblem(ti("A", a, da, op_a), ti("B", b, db, op_b), ti("C", c, dd, op_c) if with_c else None,
                           ti("D", c, dd), tuple(sorted(ext.items())), compute)
    return make_plan(p)


def _ctas(t, m, n):
    return -(-m // t[0]) * -(-n // t[1])


@pytest.mark.parametrize("dt", ["c64", "c128"])
def test_tile_fills_the_device(dt):
    """The largest listed tile whose grid has MIN_CTAS_PER_SM CTAs per SM; the smallest where none does; no tile
    wider than N (rounded up to 32) while a narrower one is listed."""
    first, last = FUSED_TILES[dt][0], FUSED_TILES[dt][-1]
    big = fused_tile(_plan("mk,kn,mn", {"m": 6000, "n": 5999, "k": 31}, (dt, dt, dt)), sm_count=132)
    assert (big.bm, big.bn) == first[:2]
    tiny = fused_tile(_plan("mk,kn,mn", {"m": 7, "n": 5, "k": 3}, (dt, dt, dt)))
    assert (tiny.bm, tiny.bn) == last[:2]
    for m, n in ((515, 517), (1031, 1031), (2048, 2048), (837, 957)):
        t = fused_tile(_plan("mk,kn,mn", {"m": m, "n": n, "k": 9}, (dt, dt, dt)), sm_count=132)
        listed = FUSED_TILES[dt]
        i = [x[:2] for x in listed].index((t.bm, t.bn))
        assert _ctas(listed[i], m, n) >= MIN_CTAS_PER_SM * 132 or i == len(listed) - 1
        assert all(_ctas(x, m, n) < MIN_CTAS_PER_SM * 132 for x in listed[:i])
        assert not t.mma and t.threads == (t.bm // t.tm) * (t.bn // t.tn)
    narrow = fused_tile(_plan("mk,kn,mn", {"m": 100000, "n": 29, "k": 9}, (dt, dt, dt)), sm_count=132)
    assert narrow.bn == 32


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dt", ["c64", "c128"])
def test_spec_reads_complex_elements_in_place(order, dt):
    """Strides stay in complex elements (no doubling), vectors fit 16 bytes, the compute type is complex, conj
    on A and C becomes gett::conj, identity stays empty, D carries no op."""
    ext = {"a": 6, "b": 9, "c": 7, "d": 4}
    plan = _plan("acd,dcb,ab", ext, (dt, dt, dt), order, op_a=ops.conj, op_c=ops.conj, with_c=True)
    spec = fused_spec(plan, read_c=True)
    assert spec.compute == dt and spec.path == "simt"
    assert {spec.a.dtype, spec.b.dtype, spec.d.dtype, spec.c.dtype} == {dt}
    for o in (spec.a, spec.b):
        assert o.vec * ITEMSIZE[dt] <= 16
    assert spec.d.vec * ITEMSIZE[dt] <= 16
    # (the kernel's A is the problem's A unless the planner swapped them; its op goes with it)
    conj_a = "gett::conj(x)"
    assert (spec.op_a, spec.op_b) == ((conj_a, "") if not plan.part.swapped else ("", conj_a))
    assert spec.op_c == conj_a and spec.op_d == ""
    # the maps address complex elements: the D map's strides are D's own strides (elements, not doubled)
    dstr = dict(zip(plan.problem.d.modes, plan.problem.d.strides, strict=True))
    assert set(spec.d.m.strides) | set(spec.d.n.strides) <= set(dstr.values())
    src, _ = render(spec)
    assert f"using TAcc = gett::{'cfloat' if dt == 'c64' else 'cdouble'};" in src
    assert "gett::conj(x)" in src


def test_mixed_real_and_complex_operands():
    """A real operand of a complex contraction is read as x + 0i: its own type in the kernel."""
    ext = {"i": 5, "j": 3, "k": 4}
    spec = fused_spec(_plan("ik,kj,ij", ext, ("f32", "c64", "c64"), compute="c64"), read_c=False)
    assert {spec.a.dtype, spec.b.dtype} == {"f32", "c64"} and spec.compute == "c64"
    spec = fused_spec(_plan("ik,kj,ij", ext, ("f64", "c128", "c128")), read_c=False)
    assert spec.compute == "c128"


def test_refusals():
    ext = {"i": 5, "j": 3, "k": 4}
    with pytest.raises(KernelError, match="op 'sigmoid'"):
        fused_spec(_plan("ik,kj,ij", ext, ("c64",) * 3, op_b=ops.sigmoid), read_c=False)
    with pytest.raises(KernelError, match="not complex"):
        fused_spec(_plan("ik,kj,ij", ext, ("f32",) * 3), read_c=False)
    spec = fused_spec(_plan("ik,kj,ij", ext, ("c64",) * 3), read_c=False)
    with pytest.raises(KernelError, match="mma path needs A and B both f16"):
        dataclasses.replace(spec, tile=TileConfig(64, 64, 16, 3, wm=32, wn=32))
    with pytest.raises(KernelError, match="simt tile"):
        dataclasses.replace(spec, tile=dataclasses.replace(spec.tile, sk_ctas=4))
    with pytest.raises(KernelError, match="complex D"):
        dataclasses.replace(spec, d=dataclasses.replace(spec.d, dtype="f32"))
    with pytest.raises(KernelError, match="operand A: a complex operand needs a complex compute type"):
        dataclasses.replace(spec, compute="f32")
