"""The direct kernel (gettpy.kernels.direct) compiled by NVRTC for sm_90 over its element and compute types, ops,
with and without C, 32- and 64-bit offsets (no GPU needed; skipped without NVRTC or the CUDA headers): no spills."""
from __future__ import annotations

import pytest

from gettpy import ops
from gettpy.kernels.build import compile_source
from gettpy.kernels.direct import DirectLayout, direct_source

#: (free extents, A, B, C, D strides, summed extents, A's, B's strides)
GEOMETRIES = [
    ((841, 12769), (1, 841), (1, 0), (1, 841), (1, 841), (), (), ()),          # Hadamard over leading batch modes
    ((35, 2156, 823), (1, 35, 0), (1, 0, 35), (1, 35, 75460), (1, 35, 75460), (), (), ()),  # batched outer
    ((3001,), (3,), (0,), (1,), (-1,), (3,), (1,), (1,)),                     # a sum of 3, a reversed C
    ((70000, 40000), (1, 70000), (40000, 1), (1, 70000), (1, 70000), (16,), (2800000000,), (7,)),  # 64-bit offsets
    ((2, 3), (2**31, 1), (-2**31 - 1, 1), (2**31, 5), (1, 2), (), (), ()),  # fastest strides past 32 bits
]
DTYPES = [("f16", "f16", "f16", "f32"), ("bf16", "f32", "f32", "bf16"), ("f32", "f32", "f32", "f32"),
          ("f64", "f64", "f64", "f64"), ("f16", "f64", "f16", "f64")]


@pytest.mark.parametrize("dts", DTYPES, ids=["-".join(d) for d in DTYPES])
@pytest.mark.parametrize("geo", range(len(GEOMETRIES)))
def test_direct_source_compiles(geo, dts):
    free, a, b, c, d, ks, ka, kb = GEOMETRIES[geo]
    ta, tb, tc, td = dts
    compute = "f64" if "f64" in dts else "f32"
    lay = DirectLayout(free, a, b, c, d, ks, ka, kb, (ta, tb, tc, td), compute,
                       (ops.relu.cuda, "", ops.abs.cuda, ops.tanh.cuda) if geo % 2 else ("", "", "", ""),
                       vec=(8, 4, 2, 2, 4)[geo])
    for read_c in (False, True):
        for pairs in (False, True) if lay.pairs else (False,):
            cubin, log = compile_source(direct_source(lay, read_c, pairs), "gett_direct", "sm_90")
            assert cubin and "gett_direct" in log and "0 bytes spill" in log, log


def test_pairs_geometry_compiles():
    """A Hadamard product of 2-byte tensors two values a unit (one word each), with C and ops."""
    lay = DirectLayout((842, 12769), (1, 842), (1, 0), (1, 842), (1, 842), (2,), (10751498,), (842,),
                       ("bf16", "f32", "f16", "bf16"), "f32", (ops.neg.cuda, "", ops.abs.cuda, ops.tanh.cuda), vec=8)
    assert lay.pairs and lay.pair_inputs == ("a",)
    for read_c in (False, True):
        cubin, log = compile_source(direct_source(lay, read_c, True), "gett_direct", "sm_90")
        assert cubin and "0 bytes spill" in log, log
