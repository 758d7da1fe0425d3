"""The tiled pack copy (gettpy.kernels.permute): its plan, checked on the CPU by emulating the copy (the kernels are
compiled in tests/compile/test_compile_permute.py and run in tests/gpu/test_gpu_permute.py)."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from gettpy.kernels.permute import (
    MIN_BLOCKS,
    edge_limit,
    pair_source,
    permute_source,
    plan_dense,
    plan_permute,
    plan_rowcopy,
    rowcopy_source,
    tile_edge,
)


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
    groups = [shape[a] for a in rest[:-1]] + [math.ceil(shape[a] / p.group) for a in rest[-1:]]
    assert p.blocks == math.ceil(shape[i] / p.ti) * math.ceil(shape[o] / p.to) * math.prod(groups)


@pytest.mark.parametrize("shape,strides", [
    ((4, 5, 6), (30, 6, 1)),  # already dense
    ((4, 5, 6), (60, 12, 1)),  # strided but the fast axes agree: an elementwise copy is coalesced
    ((1, 1, 8), (1, 1, 1)),  # one live axis
    ((0, 5), (5, 1)),  # empty
])
def test_plan_declines(shape, strides):
    assert plan_permute(shape, strides) is None


@pytest.mark.parametrize("extent,vec,itemsize,edge", [
    (72, 8, 2, 72),  # one tile of 72 (TCCG's 72-extents), not 32 + 32 + 8
    (72, 1, 2, 72), (64, 8, 2, 64), (312, 8, 2, 104), (296, 8, 2, 104), (24, 8, 2, 24), (5, 1, 4, 5),
    (72, 4, 4, 36), (200, 1, 1, 100),
    (72, 2, 8, 24),  # 8-byte elements: edges of at most 32
])
def test_tile_edge(extent, vec, itemsize, edge):
    assert tile_edge(extent, vec, itemsize) == edge
    assert edge % vec == 0 and edge <= max(edge_limit(itemsize), vec)
    assert math.ceil(extent / edge) == math.ceil(extent / edge_limit(itemsize))  # the fewest tiles


@pytest.mark.parametrize("shape,strides,itemsize,align,wr,ww,shift", [
    ((72, 72, 72, 72), (72, 1, 373248, 5184), 2, 256, 8, 8, False),  # 16-byte vectors both ways
    ((72, 72, 72, 72), (72, 1, 373248, 5184), 2, 4, 8, 8, True),  # a base aligned to 4 bytes: realigned words
    ((72, 72, 72), (72, 2, 5184), 2, 256, 1, 8, False),  # read axis of stride 2: scalar reads
    ((72, 72, 72), (75, 1, 5400), 2, 256, 8, 8, True),  # another stride not whole vectors: realigned words
    ((30, 36), (1, 30), 4, 256, 2, 4, False),  # 4-byte elements: aligned pairs, no realigned words
    ((30, 36), (1, 30), 2, 256, 8, 4, True),  # rows of 30 halves: realigned words
    ((8, 6), (1, 8), 8, 256, 2, 2, False),  # 8-byte elements: aligned pairs
    ((33, 7), (1, 33), 1, 256, 16, 1, True),  # odd extents
])
def test_plan_vectors(shape, strides, itemsize, align, wr, ww, shift):
    p = plan_permute(shape, strides, itemsize, align)
    assert (p.wr, p.ww, p.shift) == (wr, ww, shift)
    assert p.ti == tile_edge(shape[p.i], wr, itemsize) and p.to == tile_edge(shape[p.o], ww, itemsize)


def test_plan_rejects_mismatched_lengths():
    with pytest.raises(ValueError, match="differ in length"):
        plan_permute((2, 3), (1,))


def _shifted(p, src_flat: np.ndarray, first: int, left: int) -> np.ndarray:
    """A realigned read as the kernel makes it: the aligned 16-byte words holding p.wr elements from `first`
    (the source allocation 16-byte aligned), the second only where it holds one of the `left` elements of the
    row still to come; elements past the row's end are unknown (NaN)."""
    per = 16 // p.itemsize  # elements of a word
    w0 = first // per
    words = [w0] + ([w0 + 1] if first % per and left > per - first % per else [])
    for w in words:  # (every word loaded holds an element of the row: never past the source's end)
        assert first <= w * per + per - 1 and w * per < first + left
    got = np.full(p.wr, np.nan)
    for e in range(p.wr):
        if first + e < min(first + left, (words[-1] + 1) * per):
            got[e] = src_flat[first + e]
    assert not np.isnan(got[:min(left, p.wr)]).any(), "an element of the row not loaded"
    return got


def _emulate(p, src_flat: np.ndarray, out_size: int) -> np.ndarray:
    """Every (block, thread, vector element) of the kernel as planned, in numpy: which source element
    goes where (the read side's vectors into the tiles of the block's group, the write side's out, zeros in
    a padded margin)."""
    out = np.full(out_size, np.nan)
    ei, eo, po = p.shape[p.i], p.shape[p.o], p.po
    nti, nto = p.tiles
    lr, lw = p.ti // p.wr, p.to // p.ww
    ga = p.rest[-1] if p.rest else None  # the group axis
    for blk in range(p.blocks):
        b = blk
        t_o, b = b % nto, b // nto
        t_i, b = b % nti, b // nti
        s = d = c0 = 0
        for a in reversed(p.rest):
            e = math.ceil(p.shape[a] / p.group) if a == ga else p.shape[a]
            c, b = b % e, b // e
            c = c * p.group if a == ga else c
            c0 = c if a == ga else c0
            s += c * p.strides[a]
            d += c * p.dst_strides[a]
        for g in range(p.group):
            if ga is None and g or ga is not None and c0 + g >= p.shape[ga]:
                continue
            sg, dg = (s + g * p.strides[ga], d + g * p.dst_strides[ga]) if ga is not None else (s, d)
            tile = np.full((p.to, p.ti), np.nan)
            for v in range(lr * p.to):  # (1) read: vector vi of tile row r
                vi, r = v % lr, v // lr
                ci, co = t_i * p.ti + vi * p.wr, t_o * p.to + r
                if ci < ei and co < eo:
                    first = sg + ci * p.strides[p.i] + co * p.strides[p.o]
                    if p.shift:  # realigned words: p.wr neighbours from anywhere, the row's end respected
                        assert p.strides[p.i] == 1
                        tile[r, vi * p.wr:(vi + 1) * p.wr] = _shifted(p, src_flat, first, ei - ci)
                        continue
                    if p.wr > 1:  # a vector read is p.wr neighbours, whole vectors, all inside the extent
                        assert p.strides[p.i] == 1 and first % p.wr == 0 and ci + p.wr <= ei
                    tile[r, vi * p.wr:(vi + 1) * p.wr] = src_flat[first:first + p.wr]
            for v in range(lw * p.ti):  # (2) write: vector vo of tile column r
                vo, r = v % lw, v // lw
                ci, co = t_i * p.ti + r, t_o * p.to + vo * p.ww
                if ci < ei and co < po:
                    first = dg + ci * p.dst_strides[p.i] + co
                    assert first % p.ww == 0 and co + p.ww <= po
                    assert np.all(np.isnan(out[first:first + p.ww])), "an element written twice"
                    vals = tile[vo * p.ww:(vo + 1) * p.ww, r].copy()
                    vals[np.arange(co, co + p.ww) >= eo] = 0.0  # (the margin)
                    out[first:first + p.ww] = vals
    return out


@pytest.mark.parametrize("itemsize", [1, 2, 4, 8])
@pytest.mark.parametrize("shape,perm", [((33, 5, 40), (2, 0, 1)), ((7, 65, 3, 2), (1, 3, 0, 2)),
                                        ((70, 31), (1, 0)), ((3, 1, 34, 2), (2, 1, 3, 0)),
                                        ((72, 8, 24), (2, 0, 1)), ((16, 72, 40), (1, 2, 0)),
                                        ((6, 5, 7, 9), (3, 1, 0, 2))])  # (groups of tiles along 2 rest axes)
def test_plan_moves_every_element_once(shape, perm, itemsize):
    base = np.arange(math.prod(shape), dtype=np.float64).reshape(shape)
    view = base.transpose(perm)
    p = plan_permute(view.shape, _strides_of(view), itemsize)
    assert p.smem_bytes <= 24 * 1024 or p.group == 1
    assert p.blocks >= MIN_BLOCKS or p.group == 1
    got = _emulate(p, base.ravel(), view.size)
    np.testing.assert_array_equal(got, np.ascontiguousarray(view).ravel())


@pytest.mark.parametrize("itemsize", [1, 2])
@pytest.mark.parametrize("shape,perm,pad", [((43, 187), (1, 0), 192), ((5, 13, 30), (0, 2, 1), 16),
                                            ((9, 7, 3, 11), (3, 1, 0, 2), 16), ((70, 31), (1, 0), 0),
                                            ((2, 33, 6), (1, 2, 0), 8)])
def test_realigned_and_padded_copy_moves_every_element_once(shape, perm, pad, itemsize):
    """Views of odd extents (their rows start off vector boundaries): the reads are realigned 16-byte words,
    never past a row's last element, and a padded destination gets zeros in its margin."""
    base = np.arange(1, math.prod(shape) + 1, dtype=np.float64).reshape(shape)
    view = base.transpose(perm)
    pad = max(pad, view.shape[-1]) if pad else 0
    pad += -pad % max(1, 16 // itemsize) if pad else 0
    p = plan_permute(view.shape, _strides_of(view), itemsize, pad=pad)
    assert p.shift and p.wr * itemsize == 16
    want = np.zeros(view.shape[:-1] + (pad or view.shape[-1],))
    want[..., :view.shape[-1]] = view
    got = _emulate(p, base.ravel(), want.size)
    np.testing.assert_array_equal(got, want.ravel())


def test_plan_shift_and_pad_choice():
    """Aligned vectors where the strides and base allow them, realigned words where only the read axis' stride
    is 1; a pad only along the destination's fast (last) axis, whole vectors, not below the extent."""
    assert not plan_permute((72, 72, 72), (72, 1, 5184), 2).shift  # whole vectors: aligned reads
    assert plan_permute((72, 72, 72), (75, 1, 5400), 2).shift  # a stride not whole vectors
    assert plan_permute((72, 72, 72), (72, 1, 5184), 2, base_align=4).shift  # an unaligned base
    assert not plan_permute((72, 72, 72), (75, 1, 5400), 4).shift  # 4-byte elements: aligned reads as they allow
    assert not plan_permute((72, 72, 72), (72, 2, 5184), 2).shift  # read axis of stride 2: scalars
    p = plan_permute((43, 187), (1, 43), 2, pad=192)
    assert (p.po, p.ww, p.dst_strides, p.tiles[1] * p.to >= 192) == (192, 8, (192, 1), True)
    assert plan_permute((43, 187), (1, 43), 2, pad=180) is None  # below the extent
    assert plan_permute((187, 43), (43, 1), 2, pad=48) is None  # the source is fast along the last axis
    with pytest.raises(ValueError, match="whole vectors"):
        replace(p, po=190, ww=4)
    with pytest.raises(ValueError, match="realigned"):
        replace(p, wr=4, ti=p.ti - p.ti % 4)


def test_plan_dense():
    """A C-contiguous view with an op is one row of 16-byte vectors (as wide as its size and base allow);
    a view that is not dense has no such plan; the copy picks it only when there is an op."""
    import gettpy.kernels.permute as pm

    p = plan_dense((5, 7, 8), (56, 8, 1), 2)
    assert (p.shape, p.strides, p.w, p.vectors) == ((280,), (1,), 8, 35)
    assert plan_dense((5, 7, 8), (56, 8, 1), 2, base_align=4).w == 2
    assert plan_dense((5, 1, 8), (8, 99, 1), 4).w == 4  # (a size-1 axis' stride does not matter)
    assert plan_dense((5, 7, 8), (64, 8, 1), 2) is None and plan_dense((7, 3), (1, 7), 4) is None
    assert plan_dense((0, 3), (3, 1), 4) is None
    src, blocks, smem = pm._copy_source((5, 7, 8), (112, 16, 2), 2, 16, "x > 0 ? x : 0.1f * x", "float16")
    assert src == rowcopy_source(p, "x > 0 ? x : 0.1f * x", "float16") and (blocks, smem) == (p.blocks, 0)
    assert pm._copy_source((5, 7, 8), (112, 16, 2), 2, 16, "", "float16") is None


def test_pair_kernel_choice():
    """permute_copy_pair's choice, on the CPU: one launch of both bodies (blocks added up) where both views
    have copy kernels, none where either is dense (CuPy's copy) or their shared memory passes 48 KB."""
    import gettpy.kernels.permute as pm

    pm._pair_text.cache_clear()
    t = ((40, 72, 9), tuple(2 * s for s in (1, 40, 2880)), 2, 16, "", "float16")
    r = ((12, 37, 64), tuple(4 * s for s in (5760, 72, 1)), 4, 16, "x > 0 ? x : 0.1f * x", "float32")
    src, blocks = pm._pair_text(t, r)
    p = plan_permute(t[0], (1, 40, 2880), 2, 16)
    rc = plan_rowcopy(r[0], (5760, 72, 1), 4, 16)
    assert 'void __launch_bounds__(256) gett_permute2(' in src and blocks == p.blocks + rc.blocks
    assert src == pair_source(permute_source(p, "", "float16", body=True), p.blocks,
                              rowcopy_source(rc, "x > 0 ? x : 0.1f * x", "float32", body=True))
    dense = ((4, 5), (10, 2), 2, 16, "", "float16")
    assert pm._pair_text(t, dense) is None and pm._pair_text(dense, t) is None
    big = ((256, 256), (2, 512), 2, 16, "", "float16")  # (128 x 128 tiles: 33 KB of shared memory each)
    assert plan_permute((256, 256), (1, 256), 2, 16).smem_bytes > 24 * 1024
    assert pm._pair_text(big, big) is None and pm._pair_text(big, r) is not None
    pm._pair_text.cache_clear()


def test_op_source_rejects_integer_types():
    with pytest.raises(ValueError, match="int8"):
        permute_source(plan_permute((3, 7), (1, 3), 1), "x", "int8")


def test_source_rejects_odd_itemsize():
    with pytest.raises(ValueError, match="12-byte"):
        permute_source(plan_permute((3, 7), (1, 3), 12))


def _emulate_rowcopy(p, src_flat: np.ndarray) -> np.ndarray:
    """Every thread of the row copy as planned: destination vector v from the source offset it computes."""
    out = np.full(math.prod(p.shape), np.nan)
    lv = p.shape[p.o] // p.w
    for v in range(p.vectors):
        r, s = v // lv, (v % lv) * p.w * p.strides[p.o]
        for a in reversed(p.rest):
            q, r = r % p.shape[a], r // p.shape[a]
            s += q * p.strides[a]
        if p.w > 1:  # (a vector: p.w neighbours of the source, aligned)
            assert p.strides[p.o] == 1 and s % p.w == 0
        out[v * p.w:(v + 1) * p.w] = src_flat[s:s + p.w * p.strides[p.o]:max(p.strides[p.o], 1)][:p.w]
    return out


@pytest.mark.parametrize("itemsize", [1, 2, 4, 8])
@pytest.mark.parametrize("shape,perm,cut", [((72, 72, 72), (1, 0, 2), None), ((6, 5, 40), (1, 0, 2), None),
                                            ((9, 8, 24), (0, 1, 2), 16), ((3, 7, 10), (1, 0, 2), None)])
def test_rowcopy_moves_every_element_once(shape, perm, cut, itemsize):
    """Views whose source fast axis is the destination's (TCCG #21's pack), permuted or sliced."""
    base = np.arange(math.prod(shape), dtype=np.float64).reshape(shape)
    view = base.transpose(perm)
    if cut:
        view = view[:, :, :cut]
    strides = _strides_of(view)
    assert plan_permute(view.shape, strides, itemsize) is None
    p = plan_rowcopy(view.shape, strides, itemsize)
    assert p is not None and p.o == 2
    np.testing.assert_array_equal(_emulate_rowcopy(p, base.ravel()), np.ascontiguousarray(view).ravel())


def test_rowcopy_declines_and_vectors():
    assert plan_rowcopy((4, 5), (5, 1), 2) is None  # dense already: a contiguous copy
    assert plan_rowcopy((4, 5), (1, 4), 2) is None  # fast axes differ: the tiled transpose
    assert plan_rowcopy((72, 72, 72), (72, 5184, 1), 2).w == 8  # 16-byte vectors
    assert plan_rowcopy((72, 72, 72), (72, 5184, 1), 2, base_align=2).w == 1  # (an unaligned base)
    assert plan_rowcopy((8, 12), (24, 2), 2).w == 1  # (a fast axis of stride 2)


def test_copy_kernel_chooses_and_caches():
    """permute_copy's choice per view signature, on the CPU (the kernel's source): the tiled transpose where
    the fast axes differ, the row copy where they agree, CuPy's copy for a dense view or strides that are not
    whole elements; the same signature is planned once."""
    import gettpy.kernels.permute as pm

    pm._copy_text.cache_clear()
    item = 2
    transposed = ((40, 72, 9), tuple(2 * s for s in (1, 40, 2880)))
    src, blocks = pm._copy_text(*transposed, item, 16, "", "float16")
    p = plan_permute(transposed[0], (1, 40, 2880), item, 16)
    assert src == permute_source(p) and blocks == p.blocks
    sliced = ((12, 37, 64), tuple(2 * s for s in (5760, 72, 1)))
    src, blocks = pm._copy_text(*sliced, item, 16, "x > 0 ? x : 0.1f * x", "float16")
    rc = plan_rowcopy(sliced[0], (5760, 72, 1), item, 16)
    assert src == rowcopy_source(rc, "x > 0 ? x : 0.1f * x", "float16") and blocks == rc.blocks
    assert pm._copy_text((4, 5), (10, 2), item, 16, "", "float16") is None  # dense
    assert pm._copy_text((4, 5), (3, 15), item, 16, "", "float16") is None  # odd byte strides
    pm._copy_text(*transposed, item, 16, "", "float16")
    assert pm._copy_text.cache_info().hits == 1
    pm._copy_text.cache_clear()


# -- GPU -----------------------------------------------------------------------------------------------


