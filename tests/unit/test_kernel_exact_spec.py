"""The integer kernel's spec (gettpy.backends.gpu_exact), pure Python: its compute type (the narrowest unsigned type
whose low bits are all D keeps), tile, element-wise and vector reads of 1-, 2-, 4- and 8-byte operands, the scalars
(modulo the compute type, integers only), and what KernelSpec refuses."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from harness import packed_strides

from gettpy.backends.gpu_exact import scalar
from gettpy.errors import KernelError
from gettpy.kernels.render import render
from gettpy.kernels.spec import ITEMSIZE, TileConfig
from gettpy.layouts.descriptor import build_operand_layout
from gettpy.plan.heuristic import kernel_compute
from gettpy.plan.simt import EXACT_TILES, exact_kernel_spec


def _spec(sub, ext, dts, order="C", tile=None):
    """The integer kernel's spec of einsum `sub` on packed operands of `order` (the kernel's A = the first)."""
    (a, b), d = sub.split("->")[0].split(","), sub.split("->")[1]
    groups = {"m": tuple(x for x in d if x in a and x not in b), "n": tuple(x for x in d if x in b and x not in a),
              "k": tuple(x for x in a if x in b and x not in d), "b": tuple(x for x in d if x in a and x in b)}
    lays = []
    for name, modes, dims, dt in (("A", a, "mkb", dts[0]), ("B", b, "nkb", dts[1]), ("D", d, "mnb", dts[2])):
        st = dict(zip(modes, packed_strides([ext[m] for m in modes], order), strict=True))
        lays.append(build_operand_layout(name, {g: groups[g] for g in dims}, ext, st, ITEMSIZE[dt]))
    size = {g: int(np.prod([ext[m] for m in ms])) for g, ms in groups.items()}
    return exact_kernel_spec(lays[0], lays[1], None, lays[2], (dts[0], dts[1], None, dts[2]),
                             (size["m"], size["n"], size["k"], size["b"]), tile)


def test_kernel_compute():
    assert kernel_compute("i8", None, 10) == "u32" and kernel_compute("u32", "i32", 10) == "u32"
    assert kernel_compute("i64", None, 10) == "u64" and kernel_compute("i32", "i64", 10) == "u64"
    assert kernel_compute("b1", None, 2**31) == "u32" and kernel_compute("b1", None, 2**32) == "u64"


@pytest.mark.parametrize("dts", [("i8", "i8", "i8"), ("u8", "u8", "u8"), ("i16", "i16", "i16"), ("i32", "i32", "i32"),
                                 ("i64", "i64", "i64"), ("u64", "u64", "u64"), ("b1", "b1", "b1"),
                                 ("i8", "i32", "i32")])
@pytest.mark.parametrize("order", ["C", "F"])
def test_spec(dts, order):
    ext = {"i": 37, "j": 29, "k": 33}
    spec = _spec("ik,kj->ij", ext, dts, order)
    want = "u64" if "64" in dts[2] else "u32"
    assert spec.compute == want and spec.path == "simt" and not spec.semiring
    assert (spec.a.dtype, spec.b.dtype, spec.d.dtype) == dts
    assert max(spec.a.vec, spec.b.vec, spec.d.vec) == 1  # (odd extents: element by element)
    assert (spec.M, spec.N, spec.K, spec.batch) == (37, 29, 33, 1)
    assert spec.tile.bm * spec.tile.bn == EXACT_TILES[want][-1][0] * EXACT_TILES[want][-1][1]  # (few tiles: smallest)
    src, _ = render(spec)
    assert "return acc + x * y;" in src and "fma(" not in src.split("// ---- rendered prelude ----")[1]


def test_vectors_of_narrow_types():
    """int8 rows of 64 values: 16-byte vectors of 16 elements along the contiguous dimension."""
    spec = _spec("ik,kj->ij", {"i": 64, "j": 64, "k": 64}, ("i8", "i8", "i32"))
    assert spec.a.vec * 1 == 16 and spec.a.kmajor
    assert spec.b.vec == 16 and not spec.b.kmajor
    assert spec.d.vec == 4


def test_scalars():
    assert scalar(-1, "u32", "i32", "alpha") == np.uint32(2**32 - 1)
    assert scalar(np.int64(-2), "u64", "i64", "alpha") == np.uint64(2**64 - 2)
    assert scalar(3.0, "u32", "i16", "beta") == np.uint32(3)
    assert scalar(True, "u32", "b1", "alpha") == np.uint32(1)
    with pytest.raises(KernelError, match="alpha=0.5"):
        scalar(0.5, "u32", "i32", "alpha")
    with pytest.raises(KernelError, match="0 or 1"):
        scalar(2, "u32", "b1", "alpha")
    with pytest.raises(KernelError, match="integer scalars"):
        scalar(1j, "u32", "i32", "beta")


def test_refusals():
    spec = _spec("ik,kj->ij", {"i": 5, "j": 3, "k": 4}, ("i32", "i32", "i32"))
    with pytest.raises(KernelError, match="integer and bool operands go with an integer compute type"):
        dataclasses.replace(spec, compute="f32")
    with pytest.raises(KernelError, match="operand D"):
        dataclasses.replace(spec, d=dataclasses.replace(spec.d, dtype="f32"))
    with pytest.raises(KernelError, match="simt tile"):
        dataclasses.replace(spec, semiring=("max(a, b)", "(x + y)", "0"))
    with pytest.raises(KernelError, match="mma path needs"):
        dataclasses.replace(spec, tile=TileConfig(64, 64, 32, 3, wm=32, wn=32))
    with pytest.raises(KernelError, match="not an integer or bool type"):
        _spec("ik,kj->ij", {"i": 5, "j": 3, "k": 4}, ("i32", "f32", "i32"))
