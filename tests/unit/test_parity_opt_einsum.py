"""opt_einsum with gettpy as its backend (``opt_einsum.contract(..., backend="gettpy")``): every kind of
expression opt_einsum contracts (scalar-like, Hadamard, index transformations, inner and outer products,
traces and repeated labels, broadcasting ellipses, singleton dimensions), through its path strategies, and
its ``contract_expression`` with constants. numpy.einsum in float64 is the reference.
"""
from __future__ import annotations

import numpy as np
import opt_einsum as oe
import pytest

SIZES = dict(zip("abcdefghijklm", [2, 3, 4, 5, 4, 3, 2, 6, 5, 4, 3, 2, 3], strict=True))

EXPRESSIONS = [
    # scalar-like
    "a,->a", "ab,->ab", ",ab,->ab", ",,->", "->",
    # Hadamard-like
    "a,ab,abc->abc", "a,b,ab->ab", "ab,ab,ab->ab",
    # index transformations
    "ea,fb,gc,hd,abcd->efgh", "abcd,ea,fb,gc,hd->efgh", "abc->cab",
    # inner and outer products
    "ab,ab->", "ab,ba->", "abc,bac->", "ab,cd,ef->abcdef", "ab,cd,de->be", "ab,bcd,cd->abd",
    # traces, diagonals and labels summed in one operand
    "aab,fa,df,ecc->bde", "bb,ff,be->e", "dd,fb,be,cdb->cef", "fff,fae,bef,def->abd", "baa,dcf,af,cde->be",
    "abcd,ad", "bd,db,eac->ace",
    # implicit output
    "ab,bc", "ba,ac,da", "abc,cd",
    # chains of matrix products
    "ab,bc,cd,de->ae", "ab,bc,cd,de,ef->af", "ij,jk,kl,lm->im",
    # longer networks
    "acdf,jbje,gihb,hfac,gfac,gifabc,hfac", "chd,bde,agbc,hiad,bdi,cgh,agdb", "eb,cb,fb->cef",
]


def _operands(eq, rng):
    terms = eq.split("->")[0].split(",")
    return [rng.standard_normal([SIZES[m] for m in t]) if t else float(rng.standard_normal()) for t in terms]


@pytest.mark.parametrize("optimize", ["greedy", "optimal", "dp", "branch-2", "auto"])
@pytest.mark.parametrize("eq", EXPRESSIONS)
def test_contract_with_gettpy_backend(eq, optimize):
    if optimize == "optimal" and len(eq.split(",")) > 5:
        optimize = "branch-2"  # (the optimal search of the 7-operand networks takes seconds)
    rng = np.random.default_rng(len(eq))
    ops = _operands(eq, rng)
    got = oe.contract(eq, *ops, optimize=optimize, backend="gettpy")
    want = np.einsum(eq, *ops)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


BROADCASTS = [
    ("...ab,...bc->...ac", [(2, 3, 4), (1, 4, 5)]),
    ("ab...,bc...->ac...", [(3, 4, 2), (4, 5, 1)]),
    ("ij,ij->j", [(10, 2), (1, 2)]),
    ("i,i", [(2,), (1,)]),
    ("...ij,...jk->...ik", [(1, 5), (5, 5)]),
    ("ijk,kl,jl", [(1, 5, 4), (4, 6), (5, 6)]),
    ("abjk,kl,jl,ab->ab", [(1, 1, 5, 4), (4, 6), (5, 6), (7, 7)]),
    ("ijp,ipq,ikq->ijk", [(3, 1, 1), (3, 1, 3), (1, 3, 3)]),
    ("cacc,bcb->", [(1, 1, 1, 1), (1, 4, 1)]),
]


@pytest.mark.parametrize("eq,shapes", BROADCASTS)
def test_broadcasting_and_singletons(eq, shapes):
    rng = np.random.default_rng(7)
    ops = [rng.standard_normal(s) for s in shapes]
    got = oe.contract(eq, *ops, backend="gettpy")
    np.testing.assert_allclose(got, np.einsum(eq, *ops), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("eq", ["ab,bc->ac", "abc,cd,de->abe", "a,ab,abc->abc", "ab,ab,c->c"])
def test_contract_expression_with_constants(eq):
    rng = np.random.default_rng(3)
    ops = _operands(eq, rng)
    shapes = [o.shape for o in ops]
    expr = oe.contract_expression(eq, *shapes, optimize="greedy")
    np.testing.assert_allclose(expr(*ops, backend="gettpy"), np.einsum(eq, *ops), rtol=1e-10)
    const = oe.contract_expression(eq, ops[0], *shapes[1:], constants=[0])
    np.testing.assert_allclose(const(*ops[1:], backend="gettpy"), np.einsum(eq, *ops), rtol=1e-10)


@pytest.mark.parametrize("eq,operands", [
    (",,->", (5.0, 5.0, 2.0j)),
    ("ab,->", ([[5.0, 5.0], [2.0, 1.0]], 2.0j)),
    ("ab,bc->ac", ([[5.0, 5.0], [2.0, 1.0]], [[2.0, 1.0], [3.0, 4.0]])),
])
def test_lists_and_scalars_as_operands(eq, operands):
    got = oe.contract(eq, *operands, backend="gettpy")
    np.testing.assert_allclose(got, np.einsum(eq, *operands), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.complex128])
def test_dtypes_through_the_backend(dtype):
    rng = np.random.default_rng(5)
    eq = "ab,bc,cd->ad"
    ops = [(rng.standard_normal(s) + (1j * rng.standard_normal(s) if np.dtype(dtype).kind == "c" else 0)).astype(dtype)
           for s in [(3, 4), (4, 5), (5, 2)]]
    got = oe.contract(eq, *ops, backend="gettpy")
    assert got.dtype == dtype
    want = np.einsum(eq, *[o.astype(np.complex128) for o in ops])
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)
