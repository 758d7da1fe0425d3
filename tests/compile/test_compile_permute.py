"""The pack copies (gettpy.kernels.permute: tiled transpose, row copy, pairs) compiled by NVRTC for sm_90 (no GPU
needed; skipped without NVRTC or the CUDA headers)."""
from __future__ import annotations

import numpy as np
import pytest

from gettpy import ops
from gettpy.kernels.build import compile_source
from gettpy.kernels.permute import pair_source, permute_source, plan_permute, plan_rowcopy, rowcopy_source


@pytest.mark.parametrize("itemsize", [1, 2, 4, 8])
@pytest.mark.parametrize("shape,strides", [((70, 31, 3), (1, 210, 70)), ((72, 72, 72), (5184, 1, 72))])
def test_source_compiles_for_sm90(itemsize, shape, strides):
    p = plan_permute(shape, strides, itemsize)
    cubin, log = compile_source(permute_source(p), "gett_permute", "sm_90")
    assert cubin and "gett_permute" in log and "spill" in log and "0 bytes spill" in log


@pytest.mark.parametrize("dtype,itemsize", [("float16", 2), ("float32", 4), ("float64", 8)])
def test_op_source_compiles_for_sm90(dtype, itemsize):

    src = permute_source(plan_permute((72, 16, 3), (48, 1, 16), itemsize), ops.elu(0.5).cuda, dtype)
    cubin, log = compile_source(src, "gett_permute", "sm_90")
    assert cubin and "0 bytes spill" in log


@pytest.mark.parametrize("dtype,itemsize", [("float16", 2), ("float32", 4), ("float64", 8)])
def test_rowcopy_op_source_compiles_for_sm90(dtype, itemsize):

    p = plan_rowcopy((5, 7, 72), (1008, 72, 1), itemsize)  # (every other 7 x 72 block)
    cubin, log = compile_source(rowcopy_source(p, ops.leaky_relu(0.1).cuda, dtype), "gett_permute", "sm_90")
    assert cubin and "0 bytes spill" in log


def test_pair_source_compiles_for_sm90():
    """Two copies in one launch (a tiled transpose with an op, a row copy of another element size): one
    kernel, no spills, each body in its own namespace."""

    p = plan_permute((72, 16, 3), (48, 1, 16), 2)
    rc = plan_rowcopy((5, 7, 72), (1008, 72, 1), 4)
    src = pair_source(permute_source(p, ops.leaky_relu(0.1).cuda, "float16", body=True), p.blocks,
                      rowcopy_source(rc, ops.leaky_relu(0.1).cuda, "float32", body=True))
    assert src.count("__global__") == 1 and f"blockIdx.x < {p.blocks}LL" in src
    cubin, log = compile_source(src, "gett_permute2", "sm_90")
    assert cubin and "gett_permute2" in log and "0 bytes spill" in log


@pytest.mark.parametrize("itemsize", [1, 2, 4, 8])
@pytest.mark.parametrize("shape,perm,cut", [((72, 72, 72), (1, 0, 2), None), ((6, 5, 40), (1, 0, 2), None),
                                            ((9, 8, 24), (0, 1, 2), 16), ((3, 7, 10), (1, 0, 2), None)])
def test_rowcopy_source_compiles_for_sm90(shape, perm, cut, itemsize):
    """The row copies of tests/unit/test_permute.py `test_rowcopy_moves_every_element_once` compile without spills."""
    view = np.empty(shape).transpose(perm)
    if cut:
        view = view[:, :, :cut]
    p = plan_rowcopy(view.shape, tuple(s // view.itemsize for s in view.strides), itemsize)
    assert p is not None and p.o == 2
    cubin, log = compile_source(rowcopy_source(p), "gett_permute", "sm_90")
    assert cubin and "0 bytes spill" in log


@pytest.mark.parametrize("itemsize", [1, 2, 4, 8])
@pytest.mark.parametrize("pad", [0, 192])
def test_realigned_padded_source_compiles_for_sm90(itemsize, pad):
    """The tiled copy with realigned 16-byte reads (rows of odd length) and a zero-filled margin compiles
    without spills."""
    p = plan_permute((43, 187), (1, 43), itemsize, pad=pad)
    assert p.shift == (itemsize < 4) and p.po == (pad or 187)
    cubin, log = compile_source(permute_source(p), "gett_permute", "sm_90")
    assert cubin and "0 bytes spill" in log
