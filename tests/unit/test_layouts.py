"""Layout maps: every GEMM coordinate of small cases, checked against numpy's own stride arithmetic.

Tensors are arange-filled (each element's value is its position in the base buffer), so a wrong offset
shows up as a readable wrong number. A GEMM dimension is a list of modes, the first one fastest:
g = i_0 + e_0 * (i_1 + e_1 * (i_2 + ...)).
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gettpy.errors import LayoutError
from gettpy.layouts import (
    DimMap,
    OperandLayout,
    build_dim_map,
    build_operand_layout,
    gather_matrix,
    gett_offset,
    operand_offsets,
    scatter_matrix,
)
from gettpy.layouts.descriptor import VECTOR_BYTES, pointer_alignment, self_overlapping
from gettpy.layouts.emulate import flat_memory

MODES = "abcdefgh"


def arange_array(shape, dtype=np.float64, order="C"):
    n = math.prod(shape)
    return np.arange(n, dtype=dtype).reshape(shape, order=order)


def decode(g: int, extents) -> tuple[int, ...]:
    """Multi-index of GEMM coordinate g over modes with these extents, the first mode fastest."""
    idx = []
    for e in extents:
        idx.append(g % e)
        g //= e
    return tuple(idx)


def layout_of(v: np.ndarray, groups_axes: dict[str, tuple[int, ...]], base_align=VECTOR_BYTES, extra=None):
    """OperandLayout of view `v`, axis i named MODES[i]; `extra` adds modes the operand lacks (stride 0)."""
    extents = {MODES[i]: e for i, e in enumerate(v.shape)}
    strides = {MODES[i]: s // v.itemsize for i, s in enumerate(v.strides)}
    groups = {dim: tuple(MODES[i] if isinstance(i, int) else i for i in axes) for dim, axes in groups_axes.items()}
    extents.update(extra or {})
    return build_operand_layout("A", groups, extents, strides, v.itemsize, base_align)


def expected_matrix(v: np.ndarray, groups_axes: dict[str, tuple[int, ...]], order) -> np.ndarray:
    """v's elements arranged as the GEMM view: one axis per GEMM dimension in `order`, modes first-fastest."""
    axes = [a for dim in order for a in reversed(groups_axes[dim])]
    shape = [math.prod(v.shape[a] for a in groups_axes[dim]) for dim in order]
    return v.transpose(axes).reshape(shape)


def check_every_coordinate(v: np.ndarray, groups_axes: dict[str, tuple[int, ...]]):
    """offset(g) against numpy: per dimension (gett_offset) and over the whole GEMM grid (operand_offsets)."""
    assert sorted(a for ax in groups_axes.values() for a in ax) == list(range(v.ndim))
    lay = layout_of(v, groups_axes)
    flat, origin = flat_memory(v)
    el_strides = [s // v.itemsize for s in v.strides]
    # (1) each dimension on its own: offset(g) == sum(index * element stride), numpy's rule
    for dim, axes in groups_axes.items():
        dm = lay.dim(dim)
        ex = [v.shape[a] for a in axes]
        assert dm.extent == math.prod(ex)
        g = np.arange(dm.extent, dtype=np.int64)
        got = gett_offset(dm, g)
        for gi in range(dm.extent):
            idx = decode(gi, ex)
            want = sum(i * el_strides[a] for i, a in zip(idx, axes, strict=True))
            assert got[gi] == want, f"dim {dim}: g={gi} index {idx}: offset {got[gi]} != {want} ({dm})"
    # (2) the whole grid: the element at the emulated offset is the element numpy finds by indexing
    order = tuple(groups_axes)
    off = operand_offsets(lay, order)
    want = expected_matrix(v, groups_axes, order)
    assert off.shape == want.shape
    if off.size:
        np.testing.assert_array_equal(flat[off + origin], want)
        # in bytes: offset * itemsize is numpy's dot(index, strides)
        idx = np.indices(v.shape).reshape(v.ndim, -1)
        byte = (np.asarray(v.strides)[:, None] * idx).sum(0)
        elem_of = dict(zip(map(tuple, idx.T.tolist()), byte.tolist(), strict=True))
        axes_in_order = [a for dim in order for a in groups_axes[dim]]
        for coords in itertools.product(*[range(n) for n in off.shape]):
            full = [0] * v.ndim
            for dim, gi in zip(order, coords, strict=True):
                for a, i in zip(groups_axes[dim], decode(gi, [v.shape[a] for a in groups_axes[dim]]), strict=True):
                    full[a] = i
            assert off[coords] * v.itemsize == elem_of[tuple(full)], (coords, axes_in_order)
    return lay


# --- views x groupings, every coordinate
def _views():
    a = arange_array((4, 3, 5))
    f = arange_array((4, 3, 5), order="F")
    return {
        "c_order": a,
        "f_order": f,
        "reversed_first": a[::-1],
        "reversed_all": a[::-1, ::-1, ::-1],
        "step2_last": arange_array((4, 3, 10))[:, :, ::2],
        "step_neg3_middle": arange_array((4, 9, 5))[:, ::-3],
        "transposed": arange_array((5, 4, 3)).transpose(1, 2, 0),
        "broadcast_middle": np.broadcast_to(arange_array((4, 1, 5)), (4, 3, 5)),
        "broadcast_first": np.broadcast_to(arange_array((3, 5)), (4, 3, 5)),
        "extent1_middle": arange_array((4, 1, 5)),
        "sliced_block": arange_array((6, 5, 7))[1:5, 2:5, 1:6],
        "f_reversed": f[:, ::-1],
    }


GROUPINGS = {
    "m_abc": {"m": (0, 1, 2)},
    "m_cba": {"m": (2, 1, 0)},
    "m_c_k_ab": {"m": (2,), "k": (0, 1)},
    "m_ba_k_c": {"m": (1, 0), "k": (2,)},
    "b_a_m_c_k_b": {"b": (0,), "m": (2,), "k": (1,)},
    "m_ca_n_b": {"m": (2, 0), "n": (1,)},
}


@pytest.mark.parametrize("grouping", list(GROUPINGS), ids=list(GROUPINGS))
@pytest.mark.parametrize("view", list(_views()), ids=list(_views()))
def test_every_coordinate(view, grouping):
    check_every_coordinate(_views()[view], GROUPINGS[grouping])


def test_gather_and_scatter_roundtrip():
    base = arange_array((6, 5, 8))
    v = base[::-2, 1:4, ::3]
    groups = {"b": (1,), "m": (2,), "k": (0,)}
    lay = layout_of(v, groups)
    got = gather_matrix(v, lay, ("b", "m", "k"))
    np.testing.assert_array_equal(got, expected_matrix(v, groups, ("b", "m", "k")))
    # scatter writes exactly the view's elements, nothing else of the buffer
    before = base.copy()
    scatter_matrix(v, lay, ("b", "m", "k"), -got)
    np.testing.assert_array_equal(v, -before[::-2, 1:4, ::3])
    mask = np.ones(base.shape, bool)
    mask[::-2, 1:4, ::3] = False
    np.testing.assert_array_equal(base[mask], before[mask])


def test_gather_broadcast_dimension():
    """A mode of the group that the operand lacks: stride 0, every g of it reads the same element."""
    v = arange_array((3, 4))
    lay = layout_of(v, {"m": (0, "x"), "k": (1,)}, extra={"x": 2})
    assert lay.dim("m").extent == 6
    off = operand_offsets(lay, ("m", "k"))
    flat, origin = flat_memory(v)
    got = flat[off + origin]  # m = i + 3 * x
    np.testing.assert_array_equal(got[:3], v)
    np.testing.assert_array_equal(got[3:], v)


def test_empty_gather():
    v = arange_array((0, 3))
    lay = layout_of(v, {"m": (0,), "k": (1,)})
    assert gather_matrix(v, lay, ("m", "k")).shape == (0, 3)


# --- build_dim_map: merging, dropping, negative strides
@pytest.mark.parametrize("extents,strides,want", [
    pytest.param((4, 3), (1, 4), ((1,), (12,), (1,)), id="contiguous_merge"),
    pytest.param((4, 3), (3, 1), ((1, 4), (4, 3), (3, 1)), id="no_merge_wrong_order"),
    pytest.param((2, 3, 4), (1, 2, 6), ((1,), (24,), (1,)), id="merge_three"),
    pytest.param((2, 3, 4), (1, 2, 7), ((1, 6), (6, 4), (1, 7)), id="merge_two_of_three"),
    pytest.param((4, 3), (2, 8), ((1,), (12,), (2,)), id="merge_strided_run"),
    pytest.param((4, 3), (-1, -4), ((1,), (12,), (-1,)), id="merge_negative"),
    pytest.param((4, 3), (-1, 4), ((1, 4), (4, 3), (-1, 4)), id="no_merge_sign_change"),
    pytest.param((4, 1, 3), (1, 99, 4), ((1,), (12,), (1,)), id="extent1_dropped_then_merge"),
    pytest.param((4, 5, 3), (1, 0, 4), ((1, 20), (4, 3), (1, 4)), id="stride0_dropped_no_merge_across"),
    pytest.param((5, 4), (0, 1), ((5,), (4,), (1,)), id="stride0_first"),
    pytest.param((1, 1), (3, 5), ((), (), ()), id="all_extent1"),
    pytest.param((3, 4), (0, 0), ((), (), ()), id="all_broadcast"),
    pytest.param((), (), ((), (), ()), id="no_modes"),
    pytest.param((0, 3), (1, 0), None, id="extent0"),
])
def test_build_dim_map(extents, strides, want):
    dm = build_dim_map(extents, strides)
    assert dm.extent == math.prod(extents)
    if want is not None:
        assert (dm.divisors, dm.moduli, dm.strides) == want, dm
    # whatever the terms, the map is numpy's arithmetic on every g
    for g in range(dm.extent):
        idx = decode(g, extents)
        assert gett_offset(dm, np.array([g]))[0] == sum(i * s for i, s in zip(idx, strides, strict=True))


def test_docstring_examples():
    assert build_dim_map((4, 3), (1, 4)) == DimMap(12, (1,), (12,), (1,))
    assert build_dim_map((4, 3), (3, 1)) == DimMap(12, (1, 4), (4, 3), (3, 1))


def test_c_contiguous_matrix_one_term_per_dimension():
    v = arange_array((5, 7))
    lay = layout_of(v, {"m": (0,), "k": (1,)})
    assert lay.dim("m") == DimMap(5, (1,), (5,), (7,))
    assert lay.dim("k") == DimMap(7, (1,), (7,), (1,))
    lay = layout_of(arange_array((2, 3, 4, 5)), {"m": (1, 0), "k": (3, 2)})
    assert len(lay.dim("m").strides) == 1 and len(lay.dim("k").strides) == 1


def test_maps_are_per_operand():
    """The same GEMM dimension may merge in one operand and not in another."""
    c = arange_array((3, 4))  # modes a (stride 4), b (stride 1)
    f = arange_array((3, 4), order="F")  # a (stride 1), b (stride 3)
    lay_c = layout_of(c, {"m": (1, 0)})
    lay_f = layout_of(f, {"m": (1, 0)})
    assert len(lay_c.dim("m").strides) == 1
    assert len(lay_f.dim("m").strides) == 2


# --- span, unit_run, is_broadcast
@pytest.mark.parametrize("extents,strides", [
    ((4, 3), (1, 4)), ((4, 3), (-1, 4)), ((4, 3), (3, -1)), ((2, 3, 4), (-12, 4, -1)), ((5,), (0,)),
    ((3, 5), (0, -2)), ((0, 3), (1, 0)), ((1,), (7,)), ((), ()), ((2, 2, 2), (-1, -2, -4)),
])
def test_dim_map_span_brute_force(extents, strides):
    dm = build_dim_map(extents, strides)
    if dm.extent == 0:
        assert dm.span() == (0, 0)
        return
    offs = gett_offset(dm, np.arange(dm.extent))
    assert dm.span() == (int(offs.min()), int(offs.max()))


def test_dim_map_span_partial_extent():
    """A hand-built map whose extent stops inside a term: span() still bounds every offset (it may be
    conservative there; it is exact for maps from build_dim_map, checked above)."""
    dm = DimMap(5, (1, 4), (4, 3), (1, 10))  # g in [0, 5): g=4 -> offset 10
    offs = gett_offset(dm, np.arange(5))
    lo, hi = dm.span()
    assert lo <= int(offs.min()) and hi >= int(offs.max())


def test_operand_span_and_64bit():
    v = arange_array((6, 5, 8))[::-2, 1:4, ::3]
    lay = layout_of(v, {"b": (1,), "m": (2,), "k": (0,)})
    off = operand_offsets(lay, ("b", "m", "k"))
    assert lay.span() == (int(off.min()), int(off.max()))
    assert not lay.needs_64bit
    big = build_operand_layout("A", {"m": ("a",), "k": ("b",)}, {"a": 3, "b": 2}, {"a": 1, "b": 2**31}, 4)
    assert big.needs_64bit
    neg = build_operand_layout("A", {"m": ("a",)}, {"a": 3}, {"a": -(2**30)}, 4)
    assert neg.span() == (-(2**31), 0) and neg.needs_64bit


@pytest.mark.parametrize("extents,strides,run", [
    pytest.param((4, 3), (1, 4), 12, id="merged_contiguous"),
    pytest.param((4, 3), (1, 5), 4, id="first_mode_only"),
    pytest.param((4, 3), (2, 8), 1, id="stride2"),
    pytest.param((4, 3), (3, 1), 1, id="fast_mode_not_unit"),
    pytest.param((3, 5), (0, 1), 1, id="broadcast_first_then_unit"),
    pytest.param((1, 5), (9, 1), 5, id="extent1_first_then_unit"),
    pytest.param((4,), (-1,), 1, id="negative_unit"),
    pytest.param((3, 4), (0, 0), 1, id="broadcast"),
])
def test_unit_run(extents, strides, run):
    dm = build_dim_map(extents, strides)
    assert dm.unit_run == run
    # the run's promise, checked on every g: starting at a multiple of run, offsets go up by one
    offs = gett_offset(dm, np.arange(dm.extent))
    for start in range(0, dm.extent - run + 1, run):
        np.testing.assert_array_equal(offs[start:start + run] - offs[start], np.arange(run))


def test_is_broadcast():
    assert build_dim_map((3, 4), (0, 0)).is_broadcast
    assert build_dim_map((1,), (5,)).is_broadcast
    assert not build_dim_map((3,), (0 + 2,)).is_broadcast


# --- vector_width
def _vec_layout(m_ext, m_stride, k_ext, k_stride, itemsize, base_align=16):
    return build_operand_layout("A", {"m": ("a",), "k": ("b",)}, {"a": m_ext, "b": k_ext},
                                {"a": m_stride, "b": k_stride}, itemsize, base_align)


@pytest.mark.parametrize("m_ext,m_stride,k_ext,k_stride,itemsize,align,width", [
    pytest.param(8, 1, 5, 8, 2, 16, 8, id="f16_run8_aligned"),
    pytest.param(8, 1, 5, 8, 2, 4, 2, id="f16_run8_base_align4"),
    pytest.param(8, 1, 5, 8, 2, 8, 4, id="f16_run8_base_align8"),
    pytest.param(8, 1, 5, 8, 2, 2, 1, id="f16_run8_base_align2"),
    pytest.param(8, 1, 5, 12, 2, 16, 4, id="f16_other_stride12"),
    pytest.param(8, 1, 5, 10, 2, 16, 2, id="f16_other_stride10"),
    pytest.param(8, 1, 5, 9, 2, 16, 1, id="f16_other_stride_odd"),
    pytest.param(6, 1, 5, 8, 2, 16, 2, id="f16_run6"),
    pytest.param(16, 1, 5, 16, 2, 16, 8, id="f16_run16"),
    pytest.param(8, 2, 5, 16, 2, 16, 1, id="f16_no_unit_run"),
    pytest.param(8, 1, 5, 8, 4, 16, 4, id="f32_capped_at_16_bytes"),
    pytest.param(8, 1, 5, 8, 8, 16, 2, id="f64"),
    pytest.param(8, 1, 5, 8, 8, 8, 1, id="f64_align8"),
    pytest.param(8, 1, 5, 8, 16, 16, 1, id="c128"),
    pytest.param(8, 1, 5, -8, 2, 16, 8, id="f16_negative_other_stride"),
])
def test_vector_width(m_ext, m_stride, k_ext, k_stride, itemsize, align, width):
    lay = _vec_layout(m_ext, m_stride, k_ext, k_stride, itemsize, align)
    assert lay.vector_width("m") == width
    # its promise on every coordinate: each vector starts at an aligned element and covers consecutive ones
    if width > 1:
        off = operand_offsets(lay, ("m", "k"))
        for j in range(0, m_ext, width):
            for kk in range(k_ext):
                assert off[j, kk] % width == 0
                np.testing.assert_array_equal(off[j:j + width, kk] - off[j, kk], np.arange(width))


def test_vector_width_along_other_dimension():
    # k is the stride-1 dimension of a C-order (m, k) f16 matrix with k = 8: width 8 along k, 1 along m
    lay = _vec_layout(5, 8, 8, 1, 2)
    assert lay.vector_width("k") == 8
    assert lay.vector_width("m") == 1


def test_vector_width_merged_run():
    # modes (4, 2) contiguous merge into a run of 8 f16 elements
    lay = build_operand_layout("A", {"m": ("a", "b"), "k": ("c",)}, {"a": 4, "b": 2, "c": 3},
                               {"a": 1, "b": 4, "c": 8}, 2)
    assert lay.dim("m").unit_run == 8
    assert lay.vector_width("m") == 8


def test_vector_width_second_term_misaligned():
    # m = (a: 8 contiguous, b: stride 12): b's stride breaks 8-alignment of the vectors' starts
    lay = build_operand_layout("A", {"m": ("a", "b")}, {"a": 8, "b": 3}, {"a": 1, "b": 12}, 2)
    assert lay.vector_width("m") == 4


def test_base_align_capped():
    lay = _vec_layout(8, 1, 5, 8, 2, 64)
    assert lay.base_align == 16


@pytest.mark.parametrize("address,align", [(0, 16), (16, 16), (48, 16), (8, 8), (24, 8), (4, 4), (2, 2), (1, 1),
                                           (3, 1), (6, 2)])
def test_pointer_alignment(address, align):
    assert pointer_alignment(address) == align


# --- validation
def test_dim_map_validation():
    with pytest.raises(LayoutError):
        DimMap(4, (1,), (4, 1), (1,))
    with pytest.raises(LayoutError):
        DimMap(-1)
    with pytest.raises(LayoutError):
        DimMap(4, (0,), (4,), (1,))
    with pytest.raises(LayoutError):
        DimMap(4, (1,), (0,), (1,))


def test_unknown_dimension():
    lay = _vec_layout(4, 1, 3, 4, 8)
    assert isinstance(lay, OperandLayout)
    with pytest.raises(LayoutError):
        lay.dim("n")


def test_layouts_hashable():
    a = _vec_layout(8, 1, 5, 8, 2)
    b = _vec_layout(8, 1, 5, 8, 2)
    assert a == b and hash(a) == hash(b)
    assert {a: 1}[b] == 1


# --- flat_memory
def _flat_cases():
    base = arange_array((5, 6))
    return {
        "c": base,
        "reversed_rows": base[::-1],
        "reversed_both": base[::-1, ::-1],
        "negative_step2": base[::-2, ::-3],
        "transposed_reversed": base.T[::-1],
        "sliced_middle": arange_array((7, 8))[2:5, 6:1:-2],
        "fortran_reversed": arange_array((4, 5), order="F")[:, ::-1],
        "broadcast": np.broadcast_to(arange_array((6,))[::-1], (3, 6)),
        "zero_d": arange_array((4,))[2:3].reshape(()),
        "one_element_reversed": arange_array((3,))[1:0:-1],
        "3d_mixed": arange_array((3, 4, 5))[::-1, 1:, ::-2],
    }


@pytest.mark.parametrize("name", list(_flat_cases()), ids=list(_flat_cases()))
def test_flat_memory(name):
    v = _flat_cases()[name]
    flat, origin = flat_memory(v)
    assert flat.ndim == 1
    assert np.shares_memory(flat, v) or v.size == 0
    es = [s // v.itemsize for s in v.strides]
    for idx in np.ndindex(*v.shape):
        pos = origin + sum(i * s for i, s in zip(idx, es, strict=True))
        assert 0 <= pos < flat.size
        assert flat[pos] == v[idx], (idx, pos)
    # the buffer spans exactly what the view touches
    if v.size:
        offs = [sum(i * s for i, s in zip(idx, es, strict=True)) for idx in np.ndindex(*v.shape)] or [0]
        assert flat.size == max(offs) - min(offs) + 1
        assert origin == -min(offs)


def test_flat_memory_writes_through():
    base = arange_array((4, 5))
    v = base[::-1, ::-2]
    flat, origin = flat_memory(v)
    flat[origin] = -1.0  # v's first element is base[3, 4]
    assert v[0, 0] == -1.0 and base[3, 4] == -1.0


def test_flat_memory_empty():
    flat, origin = flat_memory(np.empty((0, 3))[::-1])
    assert flat.size == 0 and origin == 0


# --- random views and groupings (hypothesis): every coordinate
@st.composite
def view_and_groups(draw):
    nd = draw(st.integers(1, 4))
    shape = [draw(st.integers(1, 4)) for _ in range(nd)]
    steps = [draw(st.sampled_from([1, 1, 2, -1, -2])) for _ in range(nd)]
    perm = draw(st.permutations(range(nd)))
    bshape = [(e - 1) * abs(s) + 1 for e, s in zip(shape, steps, strict=True)]
    base = arange_array([bshape[p] for p in perm]).transpose(np.argsort(perm))
    v = base[tuple(slice(None, None, s) for s in steps)]
    bc = draw(st.integers(-1, nd - 1))
    if bc >= 0:  # broadcast one axis: take its first slice, stretch it back
        v = np.broadcast_to(v[tuple(slice(0, 1) if a == bc else slice(None) for a in range(nd))], v.shape)
    assert v.shape == tuple(shape)
    dims = draw(st.lists(st.sampled_from("bmk"), min_size=nd, max_size=nd))
    axes_order = draw(st.permutations(range(nd)))
    groups: dict[str, list[int]] = {}
    for a in axes_order:
        groups.setdefault(dims[a], []).append(a)
    return v, {d: tuple(ax) for d, ax in groups.items()}


@settings(max_examples=200, deadline=None)
@given(case=view_and_groups())
def test_every_coordinate_random(case):
    v, groups = case
    check_every_coordinate(v, groups)


# --- vector_access: vectors along a non-leading stride-1 term (interleaved tiles)
@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 9), min_size=1, max_size=4), st.data())
def test_vector_access_every_vector(extents, data):
    """Every vector vector_access allows is v consecutive, v-aligned elements: enumerate them all."""
    n = len(extents)
    perm = data.draw(st.permutations(range(n)))  # memory order of the modes
    pad = data.draw(st.sampled_from([0, 0, 8]))
    strides, acc = [0] * n, 1
    for i in perm:
        strides[i] = acc
        acc *= extents[i] + (pad if i == perm[0] and data.draw(st.booleans()) else 0)
    k_stride = acc
    modes = tuple("abcd"[:n])
    tile = data.draw(st.sampled_from([None, 64, 128]))
    itemsize = data.draw(st.sampled_from([2, 4]))
    lay = build_operand_layout("A", {"m": modes, "k": ("k",)}, {**dict(zip(modes, extents, strict=True)), "k": 3},
                               {**dict(zip(modes, strides, strict=True)), "k": k_stride}, itemsize)
    v, vs = lay.vector_access("m", tile)
    dm = lay.dim("m")
    if v == 1:
        return
    assert v * itemsize <= VECTOR_BYTES and (tile is None or tile % (v * vs) == 0)
    # the term the vector runs along has divisor vs and stride 1
    i = dm.divisors.index(vs)
    assert dm.strides[i] == 1 and dm.moduli[i] % v == 0
    g = np.arange(dm.extent)
    starts = g[(g // vs) % dm.moduli[i] % v == 0]
    base = gett_offset(dm, starts)
    assert (base % v == 0).all() and k_stride % v == 0  # every vector start aligned, for every k
    for j in range(v):
        assert (starts + j * vs < dm.extent).all()
        np.testing.assert_array_equal(gett_offset(dm, starts + j * vs), base + j)
    assert len(starts) * v == dm.extent  # the vectors cover every coordinate once


def test_vector_access_prefers_leading_term_and_respects_tile():
    # m = (x: 16, stride 48; y: 48 contiguous): the vector runs along y, 16 coordinates apart
    lay = build_operand_layout("A", {"m": ("x", "y")}, {"x": 16, "y": 48}, {"x": 48, "y": 1}, 2)
    assert lay.vector_width("m") == 1
    assert lay.vector_access("m") == (8, 16)
    assert lay.vector_access("m", 128) == (8, 16)
    assert lay.vector_access("m", 64) == (4, 16)   # groups of vs * v must tile the tile
    assert lay.vector_access("m", 16) == (1, 1)
    lead = build_operand_layout("A", {"m": ("y", "x")}, {"x": 16, "y": 48}, {"x": 48, "y": 1}, 2)
    assert lead.vector_access("m", 128) == (8, 1) == (lead.vector_width("m"), 1)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(-7, 7)), min_size=1, max_size=4))
def test_self_overlapping_by_enumeration(dims):
    """self_overlapping against every coordinate's offset: it never misses distinct coordinates sharing an offset,
    is False for a tensor of no elements, and exact where each stride passes the faster ones' reach (the
    layouts of packed tensors and their views)."""
    extents, strides = tuple(e for e, _ in dims), tuple(s for _, s in dims)
    offsets = [sum(i * s for i, s in zip(idx, strides, strict=True))
               for idx in itertools.product(*(range(e) for e in extents))]
    shared = len(set(offsets)) < len(offsets)
    if shared:
        assert self_overlapping(extents, strides)
    if 0 in extents:
        assert not self_overlapping(extents, strides)
    nested, reach = True, 0
    for s, e in sorted((abs(s), e) for e, s in dims if e > 1):
        nested, reach = nested and (s > reach or s == 0), reach + s * (e - 1)
    if nested:
        assert self_overlapping(extents, strides) == shared
