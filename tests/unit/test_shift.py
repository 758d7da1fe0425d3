"""Shifted rows (OperandSpec.shift), host side: where the lowering reads a k-major input so (rows not 16-byte
aligned, each row's k-tile one contiguous run, an mma.sync or simt tile), where KernelSpec refuses it (naming the
operand and the reason), and the shared memory a shifted stage takes (its raw words and the rows' leads), against
the loader's layout written out by hand."""
from __future__ import annotations

import dataclasses

import pytest

from gettpy.errors import KernelError
from gettpy.kernels.spec import TileConfig, _stage_bytes, shift_refusal
from gettpy.plan import ContractionProblem, make_plan
from gettpy.plan.problem import TensorInfo
from gettpy.plan.reads import shift_read
from gettpy.plan.tiles import kernel_spec

MMA = TileConfig(128, 64, 32, 4, wm=64, wn=32)


def _plan(k: int, dtype: str = "f16", a_strides=None, m: int = 61, n: int = 51, kmodes=None):
    """Row-major A[m, k], B[n, k] (or A with `a_strides` over modes m, *kmodes), D[m, n]."""
    kmodes = kmodes or (("k", k),)
    names = tuple(x for x, _ in kmodes)
    if a_strides is None:
        st, acc = [], 1
        for _, e in reversed(kmodes):
            st.insert(0, acc)
            acc *= e
        a_strides = (acc, *st)
    a = TensorInfo("A", ("m", *names), a_strides, dtype)
    b = TensorInfo("B", ("n", *names), a_strides, dtype)
    d = TensorInfo("D", ("m", "n"), (n, 1), "f32")
    ext = (*kmodes, ("m", m), ("n", n))
    return make_plan(ContractionProblem(a, b, None, d, tuple(sorted(ext)), "f32"))


@pytest.mark.parametrize("k,dtype,shifted", [(1037, "f16", True), (1030, "f16", True), (1032, "f16", False),
                                             (1037, "f32", True), (1036, "f32", False), (1037, "bf16", True)])
def test_lowering_reads_unaligned_rows_shifted(k, dtype, shifted):
    """Rows of k values: 16-byte vectors where k * itemsize is a multiple of 16, else shifted rows (vec keeps the
    vectors the layout has: 1 for an odd k, 2 for rows 4 bytes apart in alignment)."""
    spec = kernel_spec(_plan(k, dtype), False, tile=MMA if dtype != "f32" else TileConfig(64, 64, 16, 3, tm=4, tn=4))
    assert spec.a.shift == spec.b.shift == shifted and spec.a.kmajor
    item = {"f16": 2, "bf16": 2, "f32": 4}[dtype]
    assert spec.a.copy_vec * item == 16
    if shifted:
        assert spec.a.vec * item < 16


def test_refusals():
    """shift_refusal names each reason; KernelSpec refuses a forced shift with it, naming the operand."""
    spec = kernel_spec(_plan(1037), False, tile=MMA)
    a = spec.a
    assert shift_refusal(a, MMA, 128, 1037) == ""
    wg = TileConfig(128, 128, 64, 3, wm=64, wn=128, wgmma=True)
    assert "not an mma.sync or simt tile" in shift_refusal(a, wg, 128, 1037)
    assert "words" in shift_refusal(a, TileConfig(128, 64, 48, 4, wm=64, wn=32), 128, 1037)  # (6 words a row)
    assert "whole warps" in shift_refusal(a, TileConfig(16, 64, 16, 4, wm=16, wn=32), 8, 1037)
    assert "mn-major" in shift_refusal(dataclasses.replace(a, kmajor=False), MMA, 128, 1037)
    assert "contiguous runs" in shift_refusal(a, MMA, 128, 0)
    # two k terms whose leading one (37 values) does not hold whole k-tiles of 32: no contiguous run a k-tile
    p = _plan(0, kmodes=(("k", 300), ("l", 37)), a_strides=(300 * 40, 40, 1))
    two = kernel_spec(p, False, tile=MMA)
    assert not two.a.shift and "contiguous runs" in shift_refusal(dataclasses.replace(two.a, shift=True), MMA, 128,
                                                                  two.K)
    # one term that wraps (A has 39 values of k, repeated for B's mode b of 16, a stride-0 term the map omits)
    p = make_plan(ContractionProblem(TensorInfo("A", ("c", "a"), (13, 1), "f16"), TensorInfo("B", ("b",), (1,), "f16"),
                                     None, TensorInfo("D", (), (), "f32"), (("a", 13), ("b", 16), ("c", 3)), "f32"))
    wrap = kernel_spec(p, False, tile=TileConfig(16, 128, 32, 4, wm=16, wn=32))
    assert wrap.a.k.moduli[0] < wrap.a.k.extent and not wrap.a.shift
    assert "contiguous runs" in shift_refusal(dataclasses.replace(wrap.a, shift=True), wrap.tile, 16, wrap.K)
    with pytest.raises(KernelError, match="operand A: no shifted rows here"):
        dataclasses.replace(spec, tile=TileConfig(128, 64, 32, 4, wm=64, wn=32, resident_a=True),
                            a=dataclasses.replace(a, kmajor=True))


def test_shift_read_keeps_aligned_and_mn_major_reads():
    spec = kernel_spec(_plan(1037), False, tile=MMA)
    aligned = dataclasses.replace(spec.a, vec=8, shift=False)
    assert shift_read(aligned, MMA, 128, 1037) is aligned
    mn = dataclasses.replace(spec.a, kmajor=False, shift=False)
    assert shift_read(mn, MMA, 128, 1037) is mn


@pytest.mark.parametrize("tmn,bk,dtype", [(128, 32, "f16"), (64, 64, "bf16"), (64, 16, "f32"), (32, 128, "f16")])
def test_stage_bytes(tmn, bk, dtype):
    """A shifted stage: the padded slot rows, then (16-byte aligned) the rows' leads as ints in whole words and each
    row's bk / fw + 1 raw words."""
    item = {"f16": 2, "bf16": 2, "f32": 4}[dtype]
    fw = 16 // item
    spec = kernel_spec(_plan(1037, dtype), False, tile=MMA)
    op = dataclasses.replace(spec.a, dtype=dtype, shift=True)
    tile = TileConfig(tmn, 64, bk, 3, wm=32, wn=32) if tmn >= 32 else MMA
    slots = tmn * (bk + fw) * item
    raw = -(-slots // 16) * 16 + 16 * (-(-tmn * 4 // 16) + tmn * (bk // fw + 1))
    assert _stage_bytes(tile, op, tmn) == -(-raw // 16) * 16
    assert _stage_bytes(tile, dataclasses.replace(op, shift=False), tmn) == -(-slots // 16) * 16
