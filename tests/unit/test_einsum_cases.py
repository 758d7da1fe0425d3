"""Table-driven einsum cases on the CPU executor, each checked against np.einsum.

Inputs are random and never zero (so that a dropped or doubled term always shows). The reference is
np.einsum in float64 (complex128 for complex inputs) on the same values; see `harness.assert_close` for the
per-dtype tolerances.
"""
from __future__ import annotations

import numpy as np
import pytest
from harness import DTYPES, assert_close, nonzero, reference

import gettpy
from gettpy import ops

# (test id, subscripts, operand shapes)
CASES = [
    # --- two operands: GEMM-like, explicit and implicit output
    ("matmul", "ij,jk->ik", [(3, 4), (4, 5)]),
    ("matmul_implicit", "ij,jk", [(3, 4), (4, 5)]),
    ("matmul_out_transposed", "ij,jk->ki", [(3, 4), (4, 5)]),
    ("matmul_a_transposed", "ji,jk->ik", [(4, 3), (4, 5)]),
    ("matmul_b_transposed", "ij,kj->ik", [(3, 4), (5, 4)]),
    ("matmul_both_transposed", "ji,kj->ki", [(4, 3), (5, 4)]),
    ("matvec", "ij,j->i", [(3, 7), (7,)]),
    ("vecmat", "i,ij->j", [(3,), (3, 7)]),
    ("vecmat_implicit", "i,ij", [(3,), (3, 7)]),
    ("dot", "i,i->", [(9,), (9,)]),
    ("dot_implicit", "i,i", [(9,), (9,)]),
    ("frobenius", "ij,ij->", [(3, 5), (3, 5)]),
    ("frobenius_transposed", "ij,ji->", [(3, 5), (5, 3)]),
    ("hadamard", "ij,ij->ij", [(3, 5), (3, 5)]),
    ("hadamard_transposed", "ij,ji->ij", [(3, 5), (5, 3)]),
    ("hadamard_out_transposed", "ij,ij->ji", [(3, 5), (3, 5)]),
    ("row_scale", "ij,i->ij", [(3, 5), (3,)]),
    ("col_scale", "ij,j->ij", [(3, 5), (5,)]),
    ("outer", "i,j->ij", [(3,), (5,)]),
    ("outer_implicit", "i,j", [(3,), (5,)]),
    ("outer_reversed", "i,j->ji", [(3,), (5,)]),
    ("outer_matrix_vector", "ij,k->ijk", [(2, 3), (4,)]),
    ("outer_interleaved", "ij,k->kji", [(2, 3), (4,)]),
    ("outer_matrices", "ij,kl->ikjl", [(2, 3), (3, 2)]),
    ("implicit_order", "ba,ac", [(3, 4), (4, 5)]),
    ("implicit_uppercase", "Ab,bC", [(3, 4), (4, 5)]),
    ("implicit_mixed_case", "aB,Bc", [(3, 4), (4, 5)]),
    ("implicit_case_sorting", "zA,Ab", [(2, 3), (3, 4)]),
    ("contract_two_modes", "ijk,jkl->il", [(2, 3, 4), (3, 4, 5)]),
    ("contract_two_modes_permuted", "ijk,kjl->li", [(2, 3, 4), (4, 3, 5)]),
    ("contract_all", "ijk,ijk->", [(2, 3, 4), (2, 3, 4)]),
    ("contract_all_permuted", "ijk,kij->", [(2, 3, 4), (4, 2, 3)]),
    ("tensordot_3_3", "abc,cde->abde", [(2, 3, 4), (4, 3, 2)]),
    ("tensordot_out_shuffled", "abc,cde->edba", [(2, 3, 4), (4, 3, 2)]),
    ("tccg_1_like", "bda,dc->abc", [(3, 5, 4), (5, 2)]),
    ("tccg_20_like", "aebf,dfce->abcd", [(2, 3, 3, 2), (3, 2, 2, 3)]),
    ("tccg_31_like", "dega,gfbc->abcdef", [(2, 2, 3, 2), (3, 2, 2, 2)]),
    ("m_and_n_split", "iaj,jbk->ikab", [(2, 3, 4), (4, 2, 3)]),
    # --- batch modes
    ("batch_first", "bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("batch_implicit_sums_b", "bij,bjk", [(2, 3, 4), (2, 4, 5)]),
    ("batch_last", "ijb,jkb->ikb", [(3, 4, 2), (4, 5, 2)]),
    ("batch_middle", "ibj,jbk->bik", [(3, 2, 4), (4, 2, 5)]),
    ("batch_out_permuted", "bij,bjk->kbi", [(2, 3, 4), (2, 4, 5)]),
    ("two_batch_modes", "abij,abjk->abik", [(2, 3, 2, 3), (2, 3, 3, 2)]),
    ("two_batch_modes_split", "aibj,bjak->kbai", [(2, 3, 2, 3), (2, 3, 2, 4)]),
    ("batch_matvec", "bij,bj->bi", [(3, 4, 5), (3, 5)]),
    ("batch_dot", "bi,bi->b", [(4, 6), (4, 6)]),
    ("batch_outer", "bi,bj->bij", [(4, 2), (4, 3)]),
    ("batch_no_k_no_n", "bi,b->bi", [(4, 3), (4,)]),
    # --- modes found in only one operand (summed away)
    ("sum_one_side", "ij,jk->k", [(3, 4), (4, 5)]),
    ("sum_other_side", "ij,jk->i", [(3, 4), (4, 5)]),
    ("sum_both_sides", "ijl,jkm->k", [(3, 4, 2), (4, 5, 3)]),
    ("sum_only_in_a", "ijl,jk->ik", [(3, 4, 2), (4, 5)]),
    ("sum_only_in_b", "ij,jkl->ik", [(3, 4), (4, 5, 2)]),
    ("sum_everything_apart", "i,j->", [(3,), (5,)]),
    ("sum_only_in_a_no_k", "ij,k->k", [(3, 4), (5,)]),
    ("sum_only_in_a_batch", "bij,bjk->bk", [(2, 3, 4), (2, 4, 5)]),
    # --- trace and diagonals (a repeated mode inside one operand)
    ("trace", "ii", [(4, 4)]),
    ("trace_explicit", "ii->", [(4, 4)]),
    ("diagonal", "ii->i", [(4, 4)]),
    ("diagonal_batch", "iij->ij", [(3, 3, 4)]),
    ("diagonal_batch_implicit", "iij", [(3, 3, 4)]),
    ("diagonal_split", "iji->ij", [(3, 4, 3)]),
    ("diagonal_split_out_reversed", "iji->ji", [(3, 4, 3)]),
    ("diagonal_triple", "iii->i", [(3, 3, 3)]),
    ("trace_triple", "iii", [(3, 3, 3)]),
    ("two_diagonals", "iijj->ij", [(2, 2, 3, 3)]),
    ("two_traces", "iijj->", [(2, 2, 3, 3)]),
    ("diagonal_in_b", "ij,jj->i", [(3, 4), (4, 4)]),
    ("diagonal_in_a", "ii,ij->j", [(3, 3), (3, 4)]),
    ("diagonal_both", "ii,ii->i", [(4, 4), (4, 4)]),
    ("traces_product", "ii,jj->", [(3, 3), (4, 4)]),
    ("diagonal_contracted", "iij,jk->ik", [(3, 3, 4), (4, 5)]),
    ("diagonal_with_batch", "bii,bij->bj", [(2, 3, 3), (2, 3, 4)]),
    ("diagonal_kept_in_output", "iij,ik->ijk", [(3, 3, 2), (3, 4)]),
    ("trace_of_product", "ij,ji->", [(3, 5), (5, 3)]),
    # --- one operand
    ("permute_kji", "ijk->kji", [(2, 3, 4)]),
    ("permute_4d", "ijkl->ljik", [(2, 3, 4, 5)]),
    ("copy_3d", "ijk->ijk", [(2, 3, 4)]),
    ("copy_implicit", "ijk", [(2, 3, 4)]),
    ("implicit_sorts_output", "kji", [(2, 3, 4)]),
    ("transpose", "ij->ji", [(3, 5)]),
    ("reduce_middle", "ijk->j", [(2, 3, 4)]),
    ("reduce_first", "ijk->jk", [(2, 3, 4)]),
    ("reduce_and_permute", "ijk->ki", [(2, 3, 4)]),
    ("reduce_all_2d", "ij->", [(3, 5)]),
    ("reduce_all_4d", "ijkl->", [(2, 3, 2, 3)]),
    ("vector_sum", "i->", [(7,)]),
    ("vector_copy", "i->i", [(7,)]),
    # --- ellipsis and broadcasting
    ("ellipsis_matmul", "...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("ellipsis_broadcast_size1", "...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("ellipsis_broadcast_rank", "...ij,jk->...ik", [(2, 3, 3, 4), (4, 5)]),
    ("ellipsis_implicit", "...ij,...jk", [(2, 3, 4), (1, 4, 5)]),
    ("ellipsis_empty", "...ij,...jk->...ik", [(3, 4), (4, 5)]),
    ("ellipsis_sum_named", "...i->...", [(2, 3, 4)]),
    ("ellipsis_front", "i...->...i", [(2, 3, 4)]),
    ("ellipsis_middle", "i...j->j...i", [(2, 3, 4, 5)]),
    ("ellipsis_trailing_output", "ij...,jk->ik...", [(3, 4, 2), (4, 5)]),
    ("ellipsis_with_diagonal", "ii...->i...", [(3, 3, 2)]),
    ("ellipsis_bcast_dot", "...i,...i->...", [(3, 1, 4), (2, 4)]),
    ("ellipsis_all_size1", "...i,...i->...i", [(1, 1, 4), (3, 2, 4)]),
    ("ellipsis_only", "...,...->...", [(2, 3), (1, 3)]),
    ("ellipsis_sum_into_scalar_like", "...ij,...ij->...", [(2, 3, 4), (3, 4)]),
    ("named_mode_broadcast_size1", "ij,jk->ik", [(3, 1), (4, 5)]),
    ("named_mode_broadcast_size1_b", "ij,jk->ik", [(3, 4), (1, 5)]),
    ("batch_broadcast_size1", "bij,bjk->bik", [(1, 3, 4), (3, 4, 5)]),
    # --- extents 0 and 1
    ("zero_m", "ij,jk->ik", [(0, 3), (3, 4)]),
    ("zero_n", "ij,jk->ik", [(3, 4), (4, 0)]),
    ("zero_k", "ij,jk->ik", [(3, 0), (0, 4)]),
    ("zero_batch", "bij,bjk->bik", [(0, 2, 3), (0, 3, 4)]),
    ("zero_summed_batch", "bij,bjk->ik", [(0, 2, 3), (0, 3, 4)]),
    ("zero_reduce_all", "ij->", [(0, 3)]),
    ("zero_reduce_to_row", "ij->j", [(0, 3)]),
    ("zero_trace", "ii", [(0, 0)]),
    ("zero_outer", "i,j->ij", [(0,), (3,)]),
    ("zero_dot", "i,i->", [(0,), (0,)]),
    ("zero_permute", "ijk->kji", [(2, 0, 3)]),
    ("one_k", "ij,jk->ik", [(3, 1), (1, 4)]),
    ("one_m", "ij,jk->ik", [(1, 3), (3, 4)]),
    ("one_n", "ij,jk->ik", [(3, 4), (4, 1)]),
    ("one_everything", "ij,jk->ik", [(1, 1), (1, 1)]),
    ("one_batch", "bij,bjk->bik", [(1, 2, 3), (1, 3, 4)]),
    ("ones_mixed_in", "abcd,cdef->abef", [(1, 3, 1, 2), (1, 2, 4, 1)]),
    ("one_trace", "ii", [(1, 1)]),
    ("one_vector_sum", "i->", [(1,)]),
    # --- scalars (0-d operands)
    ("scalar_times_vector", ",i->i", [(), (4,)]),
    ("vector_times_scalar", "i,->i", [(4,), ()]),
    ("scalar_times_scalar", ",->", [(), ()]),
    ("scalar_alone", "->", [()]),
    ("scalar_times_matrix_sum", ",ij->", [(), (3, 4)]),
    ("scalar_in_chain", ",ij,jk->ik", [(), (3, 4), (4, 5)]),
    ("scalar_ellipsis", "...,...->...", [(), (3,)]),
    # --- three operands
    ("chain3", "ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]),
    ("chain3_implicit", "ij,jk,kl", [(3, 4), (4, 5), (5, 2)]),
    ("chain3_sum_all", "ij,jk,kl->", [(3, 4), (4, 5), (5, 2)]),
    ("trace_chain3", "ij,jk,ki->", [(3, 4), (4, 5), (5, 3)]),
    ("star3", "ia,ib,ic->abc", [(5, 2), (5, 3), (5, 2)]),
    ("batch3", "bij,bjk,bkl->bil", [(2, 3, 4), (2, 4, 3), (2, 3, 2)]),
    ("hadamard3", "ij,ij,ij->ij", [(3, 4), (3, 4), (3, 4)]),
    ("bilinear_form", "i,ij,j->", [(3,), (3, 4), (4,)]),
    ("diagonal_in_chain", "ii,ij,jk->k", [(3, 3), (3, 4), (4, 2)]),
    ("three_shared_modes", "ijk,ijl,ijm->klm", [(2, 3, 2), (2, 3, 3), (2, 3, 2)]),
    ("one_sided_modes_3", "ijx,jk,kly->il", [(3, 4, 2), (4, 5), (5, 2, 3)]),
    ("outer_then_contract", "i,j,ij->", [(3,), (4,), (3, 4)]),
    ("ellipsis_3", "...i,...ij,...j->...", [(2, 3), (2, 3, 4), (1, 4)]),
    ("outer3", "a,b,c->cab", [(2,), (3,), (4,)]),
    # --- four and five operands
    ("chain4", "ij,jk,kl,lm->im", [(3, 4), (4, 5), (5, 2), (2, 3)]),
    ("four_mixed", "abc,cd,de,bf->aef", [(2, 3, 4), (4, 3), (3, 2), (3, 5)]),
    ("four_batch_ring", "bij,bjk,bkl,bli->b", [(2, 3, 4), (2, 4, 2), (2, 2, 3), (2, 3, 3)]),
    ("four_with_diagonal", "iij,jk,kl,l->i", [(3, 3, 4), (4, 2), (2, 5), (5,)]),
    ("chain5", "ab,bc,cd,de,ef->af", [(2, 3), (3, 4), (4, 3), (3, 2), (2, 5)]),
    ("five_ring", "ab,bc,cd,da,ae->e", [(2, 3), (3, 4), (4, 2), (2, 2), (2, 5)]),
    ("five_outer", "a,b,c,d,e->abcde", [(2,), (3,), (1,), (2,), (3,)]),
    ("five_star", "xa,xb,xc,xd,xe->abcde", [(3, 2), (3, 2), (3, 1), (3, 2), (3, 3)]),
]

assert len({c[0] for c in CASES}) == len(CASES), "duplicate test ids"


def _inputs(rng, shapes, dtype=np.float64):
    return [nonzero(rng, s, dtype) for s in shapes]


def _check(got, ref, dtype):
    assert_close(got, ref, dtype)
    assert np.asarray(got).dtype == np.dtype(dtype), f"result dtype {np.asarray(got).dtype}, expected {dtype}"


@pytest.mark.parametrize("subscripts,shapes", [pytest.param(s, sh, id=i) for i, s, sh in CASES])
def test_case_float64(rng, subscripts, shapes):
    xs = _inputs(rng, shapes)
    got = gettpy.einsum(subscripts, *xs)
    _check(got, np.einsum(subscripts, *xs), np.float64)


# --- optimize= for three or more operands: every path strategy gives the same result
OPT_CASES = [c for c in CASES if c[1].split("->")[0].count(",") >= 2][:6]


@pytest.mark.parametrize("optimize", [False, "greedy", "optimal"])
@pytest.mark.parametrize("subscripts,shapes", [pytest.param(s, sh, id=i) for i, s, sh in OPT_CASES])
def test_optimize_strategies(rng, subscripts, shapes, optimize):
    xs = _inputs(rng, shapes)
    got = gettpy.einsum(subscripts, *xs, optimize=optimize)
    _check(got, np.einsum(subscripts, *xs), np.float64)


def test_optimize_explicit_path(rng):
    xs = _inputs(rng, [(3, 4), (4, 5), (5, 2)])
    got = gettpy.einsum("ij,jk,kl->il", *xs, optimize=["einsum_path", (1, 2), (0, 1)])
    _check(got, np.einsum("ij,jk,kl->il", *xs), np.float64)


# --- sublist form: (operand, [labels], operand, [labels], ..., [output])
SUBLIST_CASES = [
    ("matmul", [(3, 4), (4, 5)], [[0, 1], [1, 2]], [0, 2]),
    ("matmul_implicit", [(3, 4), (4, 5)], [[0, 1], [1, 2]], None),
    ("trace", [(4, 4)], [[0, 0]], []),
    ("diagonal", [(4, 4)], [[0, 0]], [0]),
    ("permute", [(2, 3, 4)], [[0, 1, 2]], [2, 0, 1]),
    ("batch", [(2, 3, 4), (2, 4, 5)], [[7, 0, 1], [7, 1, 2]], [7, 0, 2]),
    ("ellipsis", [(2, 3, 4), (4, 5)], [[Ellipsis, 0, 1], [1, 2]], [Ellipsis, 0, 2]),
    ("chain3", [(3, 4), (4, 5), (5, 2)], [[0, 1], [1, 2], [2, 3]], [3, 0]),
    ("high_labels", [(3, 4), (4, 5)], [[30, 51], [51, 26]], [26, 30]),
    ("upper_and_lower_labels_implicit", [(3, 4), (4, 5)], [[30, 1], [1, 2]], None),
    ("outer", [(3,), (4,)], [[0], [1]], [1, 0]),
]


@pytest.mark.parametrize("shapes,labels,output", [pytest.param(sh, lb, o, id=i) for i, sh, lb, o in SUBLIST_CASES])
def test_sublist_form(rng, shapes, labels, output):
    xs = _inputs(rng, shapes)
    args = []
    for x, lb in zip(xs, labels, strict=True):
        args += [x, list(lb)]
    if output is not None:
        args.append(list(output))
    got = gettpy.einsum(*args)
    _check(got, np.einsum(*args), np.float64)


# --- views: negative strides, steps, transposes, broadcast (stride 0), Fortran order
def _base(rng, shape):
    return nonzero(rng, shape)


VIEW_CASES = [
    # (id, subscripts, [view builders: rng -> array])
    ("a_reversed_rows", "ij,jk->ik", [lambda r: _base(r, (5, 4))[::-1], lambda r: _base(r, (4, 3))]),
    ("a_reversed_cols", "ij,jk->ik", [lambda r: _base(r, (5, 4))[:, ::-1], lambda r: _base(r, (4, 3))]),
    ("both_reversed_everywhere", "ij,jk->ik", [lambda r: _base(r, (5, 4))[::-1, ::-1],
                                                lambda r: _base(r, (4, 3))[::-1, ::-1]]),
    ("a_step2", "ij,jk->ik", [lambda r: _base(r, (9, 4))[::2], lambda r: _base(r, (4, 3))]),
    ("b_step3_cols", "ij,jk->ik", [lambda r: _base(r, (3, 4)), lambda r: _base(r, (4, 10))[:, ::3]]),
    ("negative_step2", "ij,jk->ik", [lambda r: _base(r, (9, 7))[::-2, ::-2], lambda r: _base(r, (4, 3))]),
    ("a_transposed_view", "ij,jk->ik", [lambda r: _base(r, (4, 5)).T, lambda r: _base(r, (4, 3))]),
    ("b_transposed_view", "ij,jk->ik", [lambda r: _base(r, (3, 4)), lambda r: _base(r, (3, 4)).T]),
    ("permuted_3d_view", "ijk,kl->ijl", [lambda r: _base(r, (4, 2, 3)).transpose(1, 2, 0),
                                         lambda r: _base(r, (4, 5))]),
    ("a_broadcast_rows", "ij,jk->ik", [lambda r: np.broadcast_to(_base(r, (4,)), (5, 4)),
                                       lambda r: _base(r, (4, 3))]),
    ("a_broadcast_k", "ij,jk->ik", [lambda r: np.broadcast_to(_base(r, (5, 1)), (5, 4)),
                                    lambda r: _base(r, (4, 3))]),
    ("both_broadcast", "ij,jk->ik", [lambda r: np.broadcast_to(_base(r, (4,)), (5, 4)),
                                     lambda r: np.broadcast_to(_base(r, (1, 3)), (4, 3))]),
    ("broadcast_scalar_matrix", "ij,jk->ik", [lambda r: np.broadcast_to(_base(r, ()), (3, 4)),
                                              lambda r: _base(r, (4, 2))]),
    ("broadcast_batch", "bij,bjk->bik", [lambda r: np.broadcast_to(_base(r, (3, 4)), (2, 3, 4)),
                                         lambda r: _base(r, (2, 4, 5))]),
    ("broadcast_trace", "ii", [lambda r: np.broadcast_to(_base(r, (4,)), (4, 4))]),
    ("broadcast_reduce", "ijk->j", [lambda r: np.broadcast_to(_base(r, (3, 1)), (2, 3, 4))]),
    ("fortran_both", "ij,jk->ik", [lambda r: np.asfortranarray(_base(r, (5, 4))),
                                   lambda r: np.asfortranarray(_base(r, (4, 3)))]),
    ("fortran_3d", "abc,cd->abd", [lambda r: np.asfortranarray(_base(r, (2, 3, 4))),
                                   lambda r: np.asfortranarray(_base(r, (4, 5)))]),
    ("fortran_mixed_c", "ijk,kjl->il", [lambda r: np.asfortranarray(_base(r, (2, 3, 4))),
                                        lambda r: _base(r, (4, 3, 5))]),
    ("reversed_diagonal", "ii->i", [lambda r: _base(r, (4, 4))[::-1]]),
    ("stepped_trace", "ii", [lambda r: _base(r, (8, 8))[::2, 1::2]]),
    ("reversed_batch", "bij,bjk->bik", [lambda r: _base(r, (3, 2, 4))[::-1],
                                        lambda r: _base(r, (3, 4, 2))[:, ::-1]]),
    ("sliced_inner_block", "ij,jk->ik", [lambda r: _base(r, (7, 9))[1:5, 2:7],
                                         lambda r: _base(r, (8, 6))[3:8, 1:4]]),
    ("reversed_permute_1op", "ijk->kji", [lambda r: _base(r, (3, 4, 5))[::-1, :, ::-2]]),
    ("chain3_views", "ij,jk,kl->il", [lambda r: _base(r, (6, 4))[::-2], lambda r: _base(r, (5, 4)).T,
                                      lambda r: np.broadcast_to(_base(r, (1, 2)), (5, 2))]),
    ("ellipsis_reversed", "...ij,...jk->...ik", [lambda r: _base(r, (2, 3, 4))[::-1, ::-1],
                                                 lambda r: np.asfortranarray(_base(r, (2, 4, 5)))]),
    ("non_contiguous_1d", "i,i->", [lambda r: _base(r, (12,))[::3], lambda r: _base(r, (8,))[::-2]]),
]


@pytest.mark.parametrize("subscripts,builders", [pytest.param(s, b, id=i) for i, s, b in VIEW_CASES])
def test_views(rng, subscripts, builders):
    xs = [b(rng) for b in builders]
    snapshot = [x.copy() for x in xs]
    got = gettpy.einsum(subscripts, *xs)
    _check(got, np.einsum(subscripts, *snapshot), np.float64)
    for x, s in zip(xs, snapshot, strict=True):
        np.testing.assert_array_equal(x, s, err_msg="an input was modified")


# --- out=
OUT_CASES = [
    ("matmul", "ij,jk->ik", [(3, 4), (4, 5)]),
    ("batch", "bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("reduce", "ijk->j", [(2, 3, 4)]),
    ("trace_0d", "ii->", [(4, 4)]),
    ("chain3", "ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]),
    ("diagonal", "ii->i", [(4, 4)]),
    ("zero_k", "ij,jk->ik", [(3, 0), (0, 4)]),
    ("empty_result", "ij,jk->ik", [(0, 3), (3, 4)]),
    ("empty_result_1op", "ijk->kj", [(2, 0, 3)]),
]


@pytest.mark.parametrize("layout", ["c", "f", "strided_view"])
@pytest.mark.parametrize("subscripts,shapes", [pytest.param(s, sh, id=i) for i, s, sh in OUT_CASES])
def test_out_argument(rng, subscripts, shapes, layout):
    xs = _inputs(rng, shapes)
    ref = np.einsum(subscripts, *xs)
    shape = np.shape(ref)
    sentinel = -777.0
    if layout == "c":
        holder = np.full(shape, sentinel)
        out = holder
    elif layout == "f":
        holder = np.full(shape, sentinel, order="F")
        out = holder
    elif not shape:  # a 0-d result: a 0-d view into a bigger buffer
        holder = np.full(3, sentinel)
        out = holder[1:2].reshape(())
    else:  # every other element of a bigger buffer, last axis reversed
        big_shape = tuple(2 * e for e in shape)
        holder = np.full(big_shape, sentinel)
        out = holder[tuple(slice(None, None, 2) for _ in shape)]
        if shape:
            out = out[..., ::-1]
    got = gettpy.einsum(subscripts, *xs, out=out)
    assert got is out, "einsum(out=...) must return the out object itself"
    assert_close(out, ref, np.float64)
    if layout == "strided_view" and not shape:
        assert holder[0] == holder[2] == sentinel, "elements of the buffer outside `out` were written"
    elif layout == "strided_view":
        mask = np.ones(holder.shape, bool)
        mask[tuple(slice(None, None, 2) for _ in shape)] = False
        assert (holder[mask] == sentinel).all(), "elements of the buffer outside `out` were written"


def test_out_dtype_wider_than_inputs(rng):
    a, b = nonzero(rng, (3, 4), np.float32), nonzero(rng, (4, 5), np.float32)
    out = np.zeros((3, 5), np.float64)
    got = gettpy.einsum("ij,jk->ik", a, b, out=out)
    assert got is out
    assert_close(out, reference("ij,jk->ik", a, b), np.float32)


def test_out_complex_for_real_inputs(rng):
    a, b = nonzero(rng, (3, 4)), nonzero(rng, (4, 5))
    out = np.zeros((3, 5), np.complex128)
    got = gettpy.einsum("ij,jk->ik", a, b, out=out)
    assert got is out
    assert_close(out, reference("ij,jk->ik", a, b).astype(np.complex128), np.complex128)


# --- dtype=
DTYPE_ARG_CASES = [
    ("f32_in_f64_out", np.float32, np.float64, {}),
    ("f16_in_f32_out", np.float16, np.float32, {}),
    ("f16_in_f64_out", np.float16, np.float64, {}),
    ("f64_in_c128_out", np.float64, np.complex128, {}),
    ("f32_in_c64_out", np.float32, np.complex64, {}),
    ("f64_in_f32_out_unsafe", np.float64, np.float32, {"casting": "unsafe"}),
    ("c64_in_c128_out", np.complex64, np.complex128, {}),
]


@pytest.mark.parametrize("subscripts,shapes", [
    pytest.param("ij,jk->ik", [(3, 4), (4, 5)], id="matmul"),
    pytest.param("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)], id="chain3"),
    pytest.param("iij->j", [(3, 3, 4)], id="diag_1op"),
])
@pytest.mark.parametrize("in_dt,out_dt,kw", [pytest.param(i, o, k, id=n) for n, i, o, k in DTYPE_ARG_CASES])
def test_dtype_argument(rng, subscripts, shapes, in_dt, out_dt, kw):
    xs = _inputs(rng, shapes, in_dt)
    got = gettpy.einsum(subscripts, *xs, dtype=out_dt, **kw)
    assert np.asarray(got).dtype == np.dtype(out_dt)
    expect = np.einsum(subscripts, *xs, dtype=out_dt, **kw)
    assert expect.dtype == np.dtype(out_dt)  # the test's own premise: numpy agrees on the type
    # the computation runs in the wider of the two types; tolerance of the narrower one
    worst = min((np.dtype(in_dt), np.dtype(out_dt)), key=lambda d: d.itemsize // (2 if d.kind == "c" else 1))
    assert_close(got, reference(subscripts, *xs), worst)


# --- mixed input dtypes follow np.result_type
MIXED = [
    ("f32_f64", np.float32, np.float64),
    ("f64_f32", np.float64, np.float32),
    ("f16_f32", np.float16, np.float32),
    ("f16_f64", np.float16, np.float64),
    ("f32_c64", np.float32, np.complex64),
    ("f64_c64", np.float64, np.complex64),
    ("c64_c128", np.complex64, np.complex128),
    ("f16_c128", np.float16, np.complex128),
]


@pytest.mark.parametrize("subscripts,shapes", [
    pytest.param("ij,jk->ik", [(3, 4), (4, 5)], id="matmul"),
    pytest.param("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)], id="batch"),
])
@pytest.mark.parametrize("dt_a,dt_b", [pytest.param(a, b, id=n) for n, a, b in MIXED])
def test_mixed_dtypes(rng, subscripts, shapes, dt_a, dt_b):
    a, b = nonzero(rng, shapes[0], dt_a), nonzero(rng, shapes[1], dt_b)
    got = gettpy.einsum(subscripts, a, b)
    want_dt = np.result_type(dt_a, dt_b)
    assert np.asarray(got).dtype == want_dt == np.einsum(subscripts, a, b).dtype
    assert_close(got, reference(subscripts, a, b), want_dt)


MIXED_VIEWS = [
    ("f32_step2_f64", lambda r: nonzero(r, (8, 3), np.float32)[::2], lambda r: nonzero(r, (3, 5))),
    ("f32_reversed_f64", lambda r: nonzero(r, (4, 3), np.float32)[::-1], lambda r: nonzero(r, (3, 5))),
    ("f32_transposed_f64", lambda r: nonzero(r, (3, 4), np.float32).T, lambda r: nonzero(r, (3, 5))),
    ("f16_broadcast_f32", lambda r: np.broadcast_to(nonzero(r, (3,), np.float16), (4, 3)),
     lambda r: nonzero(r, (3, 5), np.float32)),
    ("f64_c128_fortran_step", lambda r: np.asfortranarray(nonzero(r, (4, 6)))[:, ::2],
     lambda r: nonzero(r, (3, 5), np.complex128)),
    ("f32_f64_both_views", lambda r: nonzero(r, (4, 7), np.float32)[:, ::-3],
     lambda r: nonzero(r, (5, 6))[1:4, ::-1][:, :5]),
]


@pytest.mark.parametrize("make_a,make_b", [pytest.param(a, b, id=i) for i, a, b in MIXED_VIEWS])
def test_mixed_dtypes_on_views(rng, make_a, make_b):
    """Operands cast to the common type must keep their own layout (strides of the cast copy, not the view)."""
    a, b = make_a(rng), make_b(rng)
    got = gettpy.einsum("ij,jk->ik", a, b)
    want_dt = np.result_type(a.dtype, b.dtype)
    assert np.asarray(got).dtype == want_dt
    narrow = min((a.dtype, b.dtype), key=lambda d: d.itemsize // (2 if d.kind == "c" else 1))
    assert_close(got, reference("ij,jk->ik", a, b), narrow)


@pytest.mark.parametrize("make_a", [pytest.param(m, id=i) for i, m, _ in MIXED_VIEWS[:4]])
def test_dtype_argument_on_views(rng, make_a):
    a = make_a(rng)
    b = nonzero(rng, (a.shape[1], 5), a.dtype)
    got = gettpy.einsum("ij,jk->ik", a, b, dtype=np.float64)
    assert np.asarray(got).dtype == np.float64
    assert_close(got, reference("ij,jk->ik", a, b), a.dtype)


def test_mixed_dtypes_three_operands(rng):
    a, b, c = nonzero(rng, (3, 4), np.float32), nonzero(rng, (4, 5), np.float16), nonzero(rng, (5, 2), np.float64)
    got = gettpy.einsum("ij,jk,kl->il", a, b, c)
    assert np.asarray(got).dtype == np.float64
    assert_close(got, reference("ij,jk,kl->il", a, b, c), np.float32)


# --- every supported dtype on a few cases
DTYPE_CASES = [c for c in CASES if c[0] in (
    "matmul", "batch_middle", "diagonal_contracted", "reduce_and_permute", "chain3", "sum_both_sides",
    "ellipsis_broadcast_size1", "scalar_times_vector")]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("subscripts,shapes", [pytest.param(s, sh, id=i) for i, s, sh in DTYPE_CASES])
def test_all_dtypes(rng, subscripts, shapes, dtype):
    xs = _inputs(rng, shapes, dtype)
    got = gettpy.einsum(subscripts, *xs)
    _check(got, reference(subscripts, *xs), dtype)
    assert np.asarray(got).dtype == np.einsum(subscripts, *xs).dtype


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_all_dtypes_on_views(rng, dtype):
    a = nonzero(rng, (6, 5), dtype)[::-2, 1:]
    b = np.asfortranarray(nonzero(rng, (4, 3), dtype))
    got = gettpy.einsum("ij,jk->ki", a, b)
    _check(got, reference("ij,jk->ki", a, b), dtype)


def test_numpy_order_and_casting_accepted(rng):
    a, b = nonzero(rng, (3, 4)), nonzero(rng, (4, 5))
    got = gettpy.einsum("ij,jk->ik", a, b, order="K", casting="safe")
    _check(got, a @ b, np.float64)


def test_python_lists_and_scalars(rng):
    got = gettpy.einsum("ij,j->i", [[1.0, 2.0], [3.0, 4.0]], np.array([0.5, -1.5]))
    _check(got, np.einsum("ij,j->i", np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([0.5, -1.5])), np.float64)
    got = gettpy.einsum(",i->i", 2.5, np.array([1.0, -2.0, 3.0]))
    _check(got, np.array([2.5, -5.0, 7.5]), np.float64)


# --- fused ops: ops[i] applied to operand i before the contraction, op_out to the result
OPS_CASES = [
    ("relu_a", "ij,jk->ik", [(3, 4), (4, 5)], [ops.relu, None], None),
    ("neg_b_abs_out", "ij,jk->ik", [(3, 4), (4, 5)], [None, ops.neg], ops.abs),
    ("identity_both", "ij,jk->ik", [(3, 4), (4, 5)], [ops.identity, ops.identity], ops.identity),
    ("leaky_elu", "bij,bjk->bik", [(2, 3, 4), (2, 4, 5)], [ops.leaky_relu(0.2), ops.elu(0.5)], None),
    ("gelu_sigmoid_out", "ij,jk->ki", [(3, 4), (4, 5)], [ops.gelu, None], ops.sigmoid),
    ("tanh_exp", "ij,jk->k", [(3, 4), (4, 5)], [ops.tanh, ops.exp], None),
    ("square_scale_out", "ij,jk->ik", [(3, 4), (4, 5)], [ops.square, ops.scale(-0.5)], ops.scale(3.0)),
    ("custom_op", "ij,jk->ik", [(3, 4), (4, 5)],
     [ops.custom("x > 0 ? x : 0.1 * x", numpy=lambda x: np.where(x > 0, x, 0.1 * x)), None], None),
    ("one_operand_exp_sum", "ij->", [(3, 4)], [ops.exp], None),
    ("one_operand_relu_diag", "ii->i", [(4, 4)], [ops.relu], ops.neg),
    ("chain3_ops", "ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)], [ops.relu, ops.abs, ops.neg], ops.tanh),
    ("diag_exp", "ij,jj->i", [(3, 4), (4, 4)], [None, ops.exp], None),
    ("one_sided_mode_square", "ijl,jk->ik", [(3, 4, 2), (4, 5)], [ops.square, None], None),
    ("op_names_as_strings", "ij,jk->ik", [(3, 4), (4, 5)], ["relu", "abs"], "neg"),
]


@pytest.mark.parametrize("subscripts,shapes,in_ops,out_op",
                         [pytest.param(s, sh, o, oo, id=i) for i, s, sh, o, oo in OPS_CASES])
def test_fused_ops(rng, subscripts, shapes, in_ops, out_op):
    xs = _inputs(rng, shapes)
    as_fn = {"relu": ops.relu, "abs": ops.abs, "neg": ops.neg}
    fns = [ops.identity if o is None else as_fn.get(o, o) for o in in_ops]
    fn_out = ops.identity if out_op is None else as_fn.get(out_op, out_op)
    ref = fn_out(np.einsum(subscripts, *[f(x) for f, x in zip(fns, xs, strict=True)]))
    got = gettpy.einsum(subscripts, *xs, ops=list(in_ops), op_out=out_op)
    _check(got, ref, np.float64)


# --- repeated calls (einsum may cache what it decided for a call signature): fresh data every time
def test_repeated_calls_same_signature(rng):
    for _ in range(3):
        a, b = nonzero(rng, (3, 4)), nonzero(rng, (4, 5))
        _check(gettpy.einsum("ij,jk->ik", a, b), a @ b, np.float64)


def test_repeated_calls_changing_layouts(rng):
    """Same subscripts and shapes, different strides, offsets and dtypes: each call must use its own."""
    views = [
        lambda: nonzero(rng, (3, 4)),
        lambda: nonzero(rng, (4, 3)).T,
        lambda: nonzero(rng, (6, 4))[::-2],
        lambda: nonzero(rng, (3, 9))[:, 1::2],
        lambda: np.broadcast_to(nonzero(rng, (4,)), (3, 4)),
        lambda: nonzero(rng, (3, 5))[:, 1:],
        lambda: nonzero(rng, (3, 4)),
    ]
    b = nonzero(rng, (4, 5))
    for make in views + views[::-1]:
        a = make()
        _check(gettpy.einsum("ij,jk->ik", a, b), a @ b, np.float64)
        out = np.full((5, 3), -1.0).T
        assert gettpy.einsum("ij,jk->ik", a, b, out=out) is out
        assert_close(out, a @ b, np.float64)
        _check(gettpy.einsum("ij,jk->ik", a.astype(np.float32), b.astype(np.float32)),
               reference("ij,jk->ik", a.astype(np.float32), b.astype(np.float32)).astype(np.float32),
               np.float32)


def test_repeated_calls_changing_ops(rng):
    a, b = nonzero(rng, (3, 4)), nonzero(rng, (4, 5))
    for op in (ops.relu, ops.neg, ops.leaky_relu(0.1), ops.leaky_relu(0.3), ops.scale(2.0), ops.scale(-1.0), None):
        f = ops.identity if op is None else op
        _check(gettpy.einsum("ij,jk->ik", a, b, ops=[op, None]), f(a) @ b, np.float64)
        _check(gettpy.einsum("ij,jk->ik", a, b, op_out=op), f(a @ b), np.float64)


