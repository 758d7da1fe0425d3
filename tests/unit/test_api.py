"""The plan/contract API, Contraction, the plan cache, tensordot/transpose and the opt_einsum backend,
all on the CPU executor against numpy float64."""
from __future__ import annotations

import numpy as np
import opt_einsum as oe
import pytest
from harness import assert_close, nonzero

import gettpy
from gettpy.einsum import clear_program_cache
from gettpy.errors import GettpyError, LayoutError, ShapeError, SubscriptError
from gettpy.plan.cache import clear_plan_cache, plan_cache_info


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def test_descriptor_default_strides_are_first_mode_fastest():
    d = gettpy.TensorDescriptor((3, 4, 5), dtype="float32")
    assert d.strides == (1, 3, 12)
    assert d.dtype == "f32"


@pytest.mark.parametrize("alpha,beta", [(1.0, 0.0), (2.5, 0.0), (1.0, 1.0), (-0.5, 2.0)])
def test_plan_contract_alpha_beta(rng, alpha, beta):
    a = nonzero(rng, (3, 4, 5))
    b = nonzero(rng, (5, 6, 3))
    c = nonzero(rng, (4, 6))
    d = np.full_like(c, np.nan)
    desc = gettpy.TensorDescriptor.of
    p = gettpy.plan(desc(a), "abk", desc(b), "kca", desc(c), "bc", desc(d), "bc")
    gettpy.contract(p, alpha, a, b, beta, c, d)
    assert_close(d, alpha * np.einsum("abk,kca->bc", a, b) + beta * c)


def test_contract_in_place_c_is_d(rng):
    a, b = nonzero(rng, (4, 3)), nonzero(rng, (3, 5))
    c = nonzero(rng, (4, 5))
    ref = 2 * a @ b + 3 * c
    desc = gettpy.TensorDescriptor.of
    p = gettpy.plan(desc(a), [0, 1], desc(b), [1, 2], desc(c), [0, 2])
    gettpy.contract(p, 2.0, a, b, 3.0, c, c)
    assert_close(c, ref)


def test_plan_with_ops_and_fortran_strides(rng):
    a = np.asfortranarray(nonzero(rng, (4, 3)))
    b = nonzero(rng, (3, 5))
    d = np.full((4, 5), np.nan)
    desc = gettpy.TensorDescriptor
    p = gettpy.plan(desc.of(a, "relu"), "ik", desc.of(b, gettpy.ops.leaky_relu(0.2)), "kj", desc.of(d), "ij")
    gettpy.contract(p, 1.0, a, b, 0.0, None, d)
    assert_close(d, np.maximum(a, 0) @ np.where(b > 0, b, 0.2 * b))


def test_contract_rejects_arrays_that_do_not_match_the_plan(rng):
    a, b, d = nonzero(rng, (4, 3)), nonzero(rng, (3, 5)), np.zeros((4, 5))
    desc = gettpy.TensorDescriptor.of
    p = gettpy.plan(desc(a), "ik", desc(b), "kj", desc(d), "ij")
    with pytest.raises(ShapeError, match="A"):
        gettpy.contract(p, 1.0, nonzero(rng, (5, 3)), b, 0.0, None, d)
    with pytest.raises(LayoutError, match="B"):
        gettpy.contract(p, 1.0, a, np.asfortranarray(b), 0.0, None, d)
    assert not d.any()


def test_plan_errors_name_the_mode():
    desc = gettpy.TensorDescriptor
    with pytest.raises(ShapeError, match="'k'.*3.*4|'k'.*4.*3"):
        gettpy.plan(desc((2, 3)), "ik", desc((4, 5)), "kj", desc((2, 5)), "ij")
    with pytest.raises(SubscriptError, match="'z'"):
        gettpy.plan(desc((2, 3)), "ik", desc((3, 5)), "kj", desc((2, 5)), "iz")


def test_contraction_object_execute_and_reset(rng):
    a, b, c = nonzero(rng, (3, 4, 5)), nonzero(rng, (5, 6, 3)), nonzero(rng, (4, 6))
    con = gettpy.Contraction("abk,kca->bc", a, b, c=c)
    assert_close(con.execute(alpha=2.0), 2 * np.einsum("abk,kca->bc", a, b))
    assert_close(con.execute(alpha=1.0, beta=-1.0), np.einsum("abk,kca->bc", a, b) - c)
    a2 = nonzero(rng, (3, 4, 5))
    con.reset_operands(a=a2)
    assert_close(con.execute(), np.einsum("abk,kca->bc", a2, b))
    with pytest.raises(ShapeError):
        con.reset_operands(b=nonzero(rng, (5, 6, 4)))
    with pytest.raises(GettpyError):
        gettpy.Contraction("abk,kca->bc", a, b).execute(beta=1.0)


def test_plan_cache_hits_for_renamed_modes(rng):
    clear_plan_cache()
    clear_program_cache()  # (einsum's own call cache would answer a call an earlier test made)
    a, b = nonzero(rng, (3, 4)), nonzero(rng, (4, 5))
    gettpy.einsum("ij,jk->ik", a, b)
    misses = plan_cache_info().misses
    gettpy.einsum("xy,yz->xz", a, b)
    info = plan_cache_info()
    assert info.misses == misses and info.hits >= 1
    gettpy.einsum("ij,jk->ik", a, nonzero(rng, (4, 7)))
    assert plan_cache_info().misses == misses + 1


@pytest.mark.parametrize("axes", [2, 1, 0, ([1, 2], [1, 0]), ([0], [2])])
def test_tensordot_matches_numpy(rng, axes):
    a = nonzero(rng, (3, 4, 5))
    b = nonzero(rng, (5, 4, 3)) if axes != 2 else nonzero(rng, (4, 5, 2))
    if axes == 1:
        b = nonzero(rng, (5, 2))
    if axes == 0:
        b = nonzero(rng, (2,))
    assert_close(gettpy.tensordot(a, b, axes), np.tensordot(a, b, axes))


def test_transpose_is_a_view(rng):
    a = nonzero(rng, (3, 4, 5))
    t = gettpy.transpose(a, (2, 0, 1))
    assert np.shares_memory(t, a) and t.shape == (5, 3, 4)


@pytest.mark.parametrize("expr,shapes", [
    ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]),
    ("abc,cd,dbe->ae", [(2, 3, 4), (4, 5), (5, 3, 2)]),
    ("ij,ij,ij->", [(3, 4)] * 3),
])
def test_opt_einsum_backend_and_contract_expression(rng, expr, shapes):
    ops = [nonzero(rng, s) for s in shapes]
    ref = np.einsum(expr, *ops)
    assert_close(oe.contract(expr, *ops, backend="gettpy"), ref)
    e = gettpy.contract_expression(expr, *shapes)
    assert_close(e(*ops), ref)


@pytest.mark.parametrize("first,second", [
    (([0, 1], [1, 2]), ([0.0, 1.0], [1.0, 2.0])),
    (([1, 0], [0, 2]), ([True, False], [False, 2])),
])
def test_cached_program_does_not_take_labels_numpy_refuses(first, second):
    """A float or bool sublist label equals (and hashes as) an int one: the program cache must not hand the int
    call's program to it; numpy refuses it with a TypeError every time."""
    a, b = np.ones((2, 3)), np.ones((3, 4))
    gettpy.einsum(a, first[0], b, first[1])
    with pytest.raises(TypeError):
        np.einsum(a, second[0], b, second[1])
    with pytest.raises(TypeError):
        gettpy.einsum(a, second[0], b, second[1])


def test_cached_program_does_not_take_an_optimize_numpy_refuses():
    a, b = np.ones((2, 3)), np.ones((3, 4))
    gettpy.einsum("ij,jk", a, b, optimize=False)
    with pytest.raises(TypeError):
        np.einsum("ij,jk", a, b, optimize=0.0)
    with pytest.raises(TypeError):
        gettpy.einsum("ij,jk", a, b, optimize=0.0)


@pytest.mark.parametrize("label,kind", [(2**70, TypeError), (-(2**64), TypeError), (52, ValueError), (-1, ValueError)])
def test_sublist_labels_out_of_range_raise_as_numpy(label, kind):
    """numpy refuses a label that is no C long with a TypeError and one outside [0, 52) with a ValueError."""
    a = np.ones(3)
    with pytest.raises(kind):
        np.einsum(a, [label])
    with pytest.raises(kind):
        gettpy.einsum(a, [label])


def test_plan_refuses_mode_labels_that_mix_ints_and_strings():
    """Int label 0 and str label 'A' would name one mode (a contraction the caller did not ask for, silently where
    the extents agree): labels are all strings or all ints; either kind alone plans the same contraction."""
    rng = np.random.default_rng(3)
    a, b, d = rng.standard_normal((4, 5)), rng.standard_normal((4, 6)), np.zeros((5, 6))
    desc = gettpy.TensorDescriptor.of
    for ma, mb, md in ((["A", "x"], [0, "y"], ["x", "y"]), (["A", "x"], [0, 2], [23, 2]), ("Ax", "Ay", [23, 24])):
        with pytest.raises(SubscriptError, match="mix ints and strings"):
            gettpy.plan(desc(a), ma, desc(b), mb, desc(d), md)
    for ma, mb, md in (("kx", "ky", "xy"), ([7, 0], [7, 1], [0, 1])):
        p = gettpy.plan(desc(a), ma, desc(b), mb, desc(d), md)
        gettpy.contract(p, 1.0, a, b, 0.0, None, d)
        np.testing.assert_allclose(d, a.T @ b, rtol=1e-12)


def test_contraction_subscripts_ignore_spaces_and_name_what_they_refuse():
    """Spaces are ignored as numpy's einsum ignores them; '...' or a digit is refused naming it."""
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 5))
    np.testing.assert_allclose(gettpy.Contraction(" ij, jk -> ik", a, b).execute(), a @ b, rtol=1e-12)
    for bad, what in (("...j,jk->...k", "'.'"), ("i1,jk->ik", "'1'")):
        with pytest.raises(SubscriptError, match=what):
            gettpy.Contraction(bad, a, b)
