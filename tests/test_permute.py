"""The tiled pack copy (gettpy.kernels.permute): its plan on the CPU, its kernel compiled by NVRTC,
and on a GPU its copies against numpy."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from gettpy.kernels.build import compile_source
from gettpy.kernels.permute import TILE, permute_source, plan_permute


def _strides_of(arr: np.ndarray) -> tuple[int, ...]:
    return tuple(s // arr.itemsize for s in arr.strides)


@pytest.mark.parametrize("shape,strides,i,o,rest", [
    ((4, 5, 6), (1, 4, 20), 0, 2, (1,)),  # a full reversal: read along axis 0, write along axis 2
    ((3, 7), (1, 3), 0, 1, ()),  # a 2-d transpose
    ((2, 1, 9), (1, 2, 2), 0, 2, ()),  # a size-1 axis is neither fast axis nor a rest axis
    ((5, 6, 7), (42, 1, 6), 1, 2, (0,)),
])
def test_plan_axes(shape, strides, i, o, rest):
    p = plan_permute(shape, strides)
    assert (p.i, p.o, p.rest) == (i, o, rest)
    dense = np.empty(shape)
    assert p.dst_strides == _strides_of(dense)
    assert p.blocks == math.ceil(shape[i] / TILE) * math.ceil(shape[o] / TILE) * math.prod(shape[a] for a in rest)


@pytest.mark.parametrize("shape,strides", [
    ((4, 5, 6), (30, 6, 1)),  # already dense
    ((4, 5, 6), (60, 12, 1)),  # strided but the fast axes agree: an elementwise copy is coalesced
    ((1, 1, 8), (1, 1, 1)),  # one live axis
    ((0, 5), (5, 1)),  # empty
])
def test_plan_declines(shape, strides):
    assert plan_permute(shape, strides) is None


def test_plan_rejects_mismatched_lengths():
    with pytest.raises(ValueError, match="differ in length"):
        plan_permute((2, 3), (1,))


def _emulate(p, src_flat: np.ndarray, out_size: int) -> np.ndarray:
    """Every (block, thread) of the kernel as planned, in numpy: which source element goes where."""
    out = np.full(out_size, np.nan)
    ei, eo = p.shape[p.i], p.shape[p.o]
    ti, to = math.ceil(ei / TILE), math.ceil(eo / TILE)
    for blk in range(p.blocks):
        b = blk
        t_o, b = b % to, b // to
        t_i, b = b % ti, b // ti
        s = d = 0
        for a in reversed(p.rest):
            c, b = b % p.shape[a], b // p.shape[a]
            s += c * p.strides[a]
            d += c * p.dst_strides[a]
        ci = t_i * TILE + np.arange(TILE)[:, None]
        co = t_o * TILE + np.arange(TILE)[None, :]
        ok = (ci < ei) & (co < eo)
        src = s + ci * p.strides[p.i] + co * p.strides[p.o]
        dst = d + ci * p.dst_strides[p.i] + co
        assert np.all(np.isnan(out[dst[ok]])), "an element written twice"
        out[dst[ok]] = src_flat[src[ok]]
    return out


@pytest.mark.parametrize("shape,perm", [((33, 5, 40), (2, 0, 1)), ((7, 65, 3, 2), (1, 3, 0, 2)),
                                        ((70, 31), (1, 0)), ((3, 1, 34, 2), (2, 1, 3, 0))])
def test_plan_moves_every_element_once(shape, perm):
    base = np.arange(math.prod(shape), dtype=np.float64).reshape(shape)
    view = base.transpose(perm)
    p = plan_permute(view.shape, _strides_of(view))
    got = _emulate(p, base.ravel(), view.size)
    np.testing.assert_array_equal(got, np.ascontiguousarray(view).ravel())


@pytest.mark.parametrize("itemsize", [1, 2, 4, 8])
def test_source_compiles_for_sm90(itemsize):
    p = plan_permute((70, 31, 3), (1, 210, 70))
    cubin, log = compile_source(permute_source(p, itemsize), "gett_permute", "sm_90")
    assert cubin and "gett_permute" in log and "spill" in log and "0 bytes spill" in log


@pytest.mark.parametrize("dtype,itemsize", [("float16", 2), ("float32", 4), ("float64", 8)])
def test_op_source_compiles_for_sm90(dtype, itemsize):
    from gettpy import ops

    src = permute_source(plan_permute((70, 31, 3), (1, 210, 70)), itemsize, ops.elu(0.5).cuda, dtype)
    cubin, log = compile_source(src, "gett_permute", "sm_90")
    assert cubin and "0 bytes spill" in log


def test_op_source_rejects_integer_types():
    with pytest.raises(ValueError, match="int8"):
        permute_source(plan_permute((3, 7), (1, 3)), 1, "x", "int8")


def test_source_rejects_odd_itemsize():
    with pytest.raises(ValueError, match="12-byte"):
        permute_source(plan_permute((3, 7), (1, 3)), 12)


# -- GPU -----------------------------------------------------------------------------------------------

SHAPES = [(33, 5, 40), (7, 65, 3, 2), (70, 31), (3, 1, 34, 2), (64, 64, 8), (312, 26, 12)]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float32, np.complex64, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_gpu_permute_copy(shape, dtype):
    import cupy as cp

    from gettpy.kernels.permute import permute_copy

    rng = np.random.default_rng(len(shape) * 7 + shape[0])
    host = (rng.uniform(-100, 100, shape)).astype(dtype)
    dev = cp.asarray(host)
    for perm in itertools.islice(itertools.permutations(range(len(shape))), 1, 7):
        got = permute_copy(dev.transpose(perm))
        assert got.flags.c_contiguous and got.shape == host.transpose(perm).shape
        np.testing.assert_array_equal(cp.asnumpy(got), np.ascontiguousarray(host.transpose(perm)))


@pytest.mark.gpu
def test_gpu_permute_copy_negative_and_sliced_strides():
    import cupy as cp

    from gettpy.kernels.permute import permute_copy

    host = np.random.default_rng(3).standard_normal((40, 50, 6)).astype(np.float32)
    dev = cp.asarray(host)
    for sl in [(slice(None, None, -1), slice(3, 45), slice(None)), (slice(1, None, 2), slice(None, None, -3), 2)]:
        view = dev[sl].T
        np.testing.assert_array_equal(cp.asnumpy(permute_copy(view)), np.ascontiguousarray(host[sl].T))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("transposed", [True, False])
def test_gpu_permute_copy_applies_op(dtype, transposed):
    """op(x) in the pack: computed in float (double for float64) and rounded to the input type, as the
    fused op; through the tiled kernel (transposed) and through the elementwise fallback."""
    import cupy as cp

    from gettpy import ops
    from gettpy.kernels.permute import permute_copy

    op = ops.leaky_relu(0.1)
    host = np.random.default_rng(5).uniform(-4, 4, (40, 70, 3)).astype(dtype)
    view = cp.asarray(host).transpose(2, 1, 0) if transposed else cp.asarray(host)[:, ::2]
    hv = host.transpose(2, 1, 0) if transposed else host[:, ::2]
    acc = np.float64 if dtype == np.float64 else np.float32
    want = op(hv.astype(acc)).astype(dtype)
    np.testing.assert_array_equal(cp.asnumpy(permute_copy(view, op.cuda)), np.ascontiguousarray(want))
