"""The tiled pack copy and the row copy (gettpy.kernels.permute) on a device: every element moved once, with
ops applied in the copy, into an output view and from an offset base, checked against numpy."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

SHAPES = [(33, 5, 40), (7, 65, 3, 2), (70, 31), (3, 1, 34, 2), (64, 64, 8), (312, 26, 12), (16, 24, 9, 40),
          (72, 8, 3, 72)]


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


@pytest.mark.gpu
def test_gpu_permute_copy_into_out_and_from_an_offset_base():
    """out= is written in place (and checked); a view whose first element is not 16-byte aligned."""
    import cupy as cp

    from gettpy.kernels.permute import permute_copy

    host = np.random.default_rng(9).standard_normal((9, 72, 40)).astype(np.float16)
    dev = cp.asarray(host)
    out = cp.empty((40, 72, 9), dtype=np.float16)
    assert permute_copy(dev.transpose(2, 1, 0), out=out) is out
    np.testing.assert_array_equal(cp.asnumpy(out), np.ascontiguousarray(host.transpose(2, 1, 0)))
    # first element 2 bytes past a 16-byte boundary, strides and extents whole vectors: scalar reads
    shifted = cp.asarray(np.concatenate([[0], host.ravel()]).astype(np.float16))[1:].reshape(host.shape)
    want = np.ascontiguousarray(host.transpose(2, 1, 0))
    np.testing.assert_array_equal(cp.asnumpy(permute_copy(shifted.transpose(2, 1, 0))), want)
    with pytest.raises(ValueError, match="C-contiguous"):
        permute_copy(dev.transpose(2, 1, 0), out=cp.empty((40, 72, 9), dtype=np.float32))
    # an out 2 and 4 bytes past a 16-byte boundary: the copies store 16-byte vectors only into an aligned out
    for skip in (1, 2):
        buf = cp.full(host.size + 8, np.nan, dtype=np.float16)
        out = buf[skip:skip + host.size].reshape(40, 72, 9)
        assert permute_copy(dev.transpose(2, 1, 0), out=out) is out
        np.testing.assert_array_equal(cp.asnumpy(out), want)
        assert bool(cp.isnan(buf[:skip]).all()) and bool(cp.isnan(buf[skip + host.size:]).all())


@pytest.mark.gpu
@pytest.mark.smoke
@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape,perm,pad", [((187, 43, 43), (1, 2, 0), 192), ((29, 113, 7), (0, 2, 1), 120),
                                            ((5, 3, 2, 11), (3, 1, 0, 2), 16), ((70, 31), (1, 0), 0)])
def test_gpu_permute_realigned_and_padded(shape, perm, pad, dtype):
    """Transposes of odd-extent tensors (rows starting off 16-byte boundaries: realigned word reads), from an
    offset base too, into a destination whose last axis is zero-filled to `pad`, against numpy; an op on the
    way for the float types."""
    import cupy as cp

    from gettpy import ops
    from gettpy.kernels.permute import permute_copy, permute_pad, plan_permute

    host = np.random.default_rng(19).uniform(-4, 4, shape).astype(dtype)
    dev = cp.asarray(np.concatenate([[0], host.ravel()]).astype(dtype))  # (a base 1 element past aligned)
    for x in (cp.asarray(host), dev[1:].reshape(shape)):
        view, hv = x.transpose(perm), host.transpose(perm)
        st = tuple(s // view.itemsize for s in view.strides)
        assert plan_permute(view.shape, st, view.itemsize).shift == (view.itemsize < 4)
        if not pad:
            np.testing.assert_array_equal(cp.asnumpy(permute_copy(view)), np.ascontiguousarray(hv))
            continue
        want = np.zeros(hv.shape[:-1] + (pad,), dtype=dtype)
        want[..., :hv.shape[-1]] = hv
        got = permute_pad(view, pad)
        assert got.flags.c_contiguous
        np.testing.assert_array_equal(cp.asnumpy(got), want)
        if dtype != np.int8:
            op = ops.leaky_relu(0.1)
            acc = np.float64 if dtype == np.float64 else np.float32
            want[..., :hv.shape[-1]] = op(hv.astype(acc)).astype(dtype)
            np.testing.assert_array_equal(cp.asnumpy(permute_pad(view, pad, op.cuda)), want)
    assert permute_pad(cp.asarray(host), shape[-1] + 3) is None  # (the source fast along the last axis too)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int8, np.float64])
def test_gpu_rowcopy(dtype):
    """Packs whose fast axes agree go through the row copy (and an op on the way), against numpy."""
    import cupy as cp

    from gettpy import ops
    from gettpy.kernels.permute import permute_copy

    host = np.random.default_rng(11).uniform(-4, 4, (24, 40, 72)).astype(dtype)
    dev = cp.asarray(host)
    for view, hv in ((dev.transpose(1, 0, 2), host.transpose(1, 0, 2)), (dev[::2, 3:, :64], host[::2, 3:, :64])):
        np.testing.assert_array_equal(cp.asnumpy(permute_copy(view)), np.ascontiguousarray(hv))
        if dtype in (np.float16, np.float32, np.float64):
            op = ops.leaky_relu(0.1)
            acc = np.float64 if dtype == np.float64 else np.float32
            want = op(hv.astype(acc)).astype(dtype)
            np.testing.assert_array_equal(cp.asnumpy(permute_copy(view, op.cuda)), np.ascontiguousarray(want))


@pytest.mark.gpu
@pytest.mark.parametrize("dtypes", [(np.float16, np.float16), (np.float32, np.float16), (np.float64, np.int8)])
def test_gpu_permute_copy_pair(dtypes):
    """Two packs in one launch (a tiled transpose and a row copy, ops on the way where the dtype has them)
    against numpy; a dense view joins the pair as a one-row copy when it has an op, and without one (int8)
    the pair falls back to two copies."""
    import cupy as cp

    from gettpy import ops
    from gettpy.kernels.permute import permute_copy_pair

    rng = np.random.default_rng(13)
    h0 = rng.uniform(-4, 4, (24, 16, 40)).astype(dtypes[0])
    h1 = rng.uniform(-4, 4, (30, 16, 72)).astype(dtypes[1])
    v0, w0 = cp.asarray(h0).transpose(2, 0, 1), h0.transpose(2, 0, 1)
    v1, w1 = cp.asarray(h1)[::2, 3:], h1[::2, 3:]
    op = ops.leaky_relu(0.1)

    def want(h, with_op):
        if not with_op:
            return np.ascontiguousarray(h)
        return np.ascontiguousarray(op(h.astype(np.float64 if h.dtype == np.float64 else np.float32)).astype(h.dtype))

    for (a, ha), (b, hb) in [((v0, w0), (v1, w1)), ((v1, w1), (v0, w0)), ((v0, w0), (cp.asarray(h1), h1))]:
        oa = op.cuda if a.dtype != np.int8 else ""
        ob = op.cuda if b.dtype != np.int8 else ""
        ga, gb = permute_copy_pair(a, oa, b, ob)
        np.testing.assert_array_equal(cp.asnumpy(ga), want(ha, bool(oa)))
        np.testing.assert_array_equal(cp.asnumpy(gb), want(hb, bool(ob)))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_gpu_dense_op_copy(dtype):
    """op(x) of a dense view through the one-row copy (16-byte vectors), against numpy; an odd size and an
    offset base take narrower vectors."""
    import cupy as cp

    from gettpy import ops
    from gettpy.kernels.permute import permute_copy

    op = ops.leaky_relu(0.1)
    acc = np.float64 if dtype == np.float64 else np.float32
    host = np.random.default_rng(17).uniform(-4, 4, (37, 41, 8)).astype(dtype)
    dev = cp.asarray(host)
    for view, hv in ((dev, host), (dev.reshape(-1)[3:], host.reshape(-1)[3:])):
        want = op(hv.astype(acc)).astype(dtype)
        np.testing.assert_array_equal(cp.asnumpy(permute_copy(view, op.cuda)), want)


@pytest.mark.gpu
def test_gpu_pack_kernels_in_the_disk_cache(tmp_path, monkeypatch):
    """The pack copies compile through the GETT kernels' build pipeline: after a permute_copy (and a pair of
    them) into a fresh cache directory, each copy's source has its verified entry there; a second device of
    the machine, where there is one, gets its own loaded function with the same values."""
    import cupy as cp

    import gettpy.kernels.build as B
    import gettpy.kernels.permute as pm

    monkeypatch.setenv("GETTPY_CACHE_DIR", str(tmp_path))
    host = np.arange(37 * 71 * 11, dtype=np.float32).reshape(37, 71, 11)  # (a shape no other test copies)
    x = cp.asarray(host)
    got = pm.permute_copy(x.transpose(2, 0, 1))
    np.testing.assert_array_equal(cp.asnumpy(got), np.ascontiguousarray(host.transpose(2, 0, 1)))
    src, _ = pm._copy_text(*pm._signature(x.transpose(2, 0, 1), ""))
    arch = "sm_" + str(cp.cuda.Device().compute_capability)
    entry = B._entry_path(B.cache_key(src, arch))
    assert entry.startswith(str(tmp_path)) and B._read_entry(entry) is not None
    a, b = pm.permute_copy_pair(x.transpose(1, 0, 2), "", x.transpose(2, 1, 0), "")
    np.testing.assert_array_equal(cp.asnumpy(a), np.ascontiguousarray(host.transpose(1, 0, 2)))
    np.testing.assert_array_equal(cp.asnumpy(b), np.ascontiguousarray(host.transpose(2, 1, 0)))
    if cp.cuda.runtime.getDeviceCount() > 1:
        with cp.cuda.Device(1):
            y = cp.asarray(host)
            np.testing.assert_array_equal(cp.asnumpy(pm.permute_copy(y.transpose(2, 0, 1))),
                                          np.ascontiguousarray(host.transpose(2, 0, 1)))
