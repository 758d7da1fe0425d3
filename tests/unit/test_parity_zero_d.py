"""0-d results of numpy operands as numpy gives them: numpy scalars, except where numpy's optimized path (optimize
True, 'greedy', 'optimal' or an explicit path) ends in a product of two operands over a summed mode, which numpy
returns as a 0-d array. Checked against numpy.einsum itself on random full contractions (disconnected terms, 0-d
operands, repeated modes, modes of extent 0 and broadcast ones, one to four operands)."""
from __future__ import annotations

import numpy as np
import pytest

import gettpy


def _random_full_contraction(rng):
    """Subscripts with an empty output and operands of extents 0-4 (some 0-d), a mode of an operand now and then
    of extent 1 where the others' is not (broadcast: numpy then drops it from that operand before a matmul)."""
    letters = "abcdefg"
    n_ops = int(rng.integers(1, 5))
    ext = {c: int(rng.integers(0, 5)) for c in letters}
    terms, ops = [], []
    for _ in range(n_ops):
        k = int(rng.integers(0, 4))
        t = "".join(rng.choice(list(letters[:4 + n_ops]), size=k))
        own = {c: 1 if rng.random() < 0.15 else ext[c] for c in set(t)}
        terms.append(t)
        ops.append(rng.standard_normal([own[c] for c in t]) if t else float(rng.standard_normal()))
    return ",".join(terms) + "->", ops


@pytest.mark.parametrize("optimize", [False, True, "greedy", "optimal", "path"])
@pytest.mark.parametrize("seed", range(40))
def test_zero_d_result_type_and_value_as_numpy(seed, optimize):
    rng = np.random.default_rng(seed)
    eq, ops = _random_full_contraction(rng)
    opt = np.einsum_path(eq, *ops, optimize="greedy")[0] if optimize == "path" else optimize
    want = np.einsum(eq, *ops, optimize=opt)
    got = gettpy.einsum(eq, *ops, optimize=opt)
    assert type(got) is type(want), (eq, optimize, type(got), type(want))
    assert np.ndim(got) == 0
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("eq,shapes,kind", [("i,i", [(3,), (3,)], np.ndarray), ("ij,ji", [(2, 3), (3, 2)], np.ndarray),
                                            ("i,i,j,j", [(3,), (3,), (2,), (2,)], np.float64),
                                            ("ii", [(3, 3)], np.float64), ("i,j", [(3,), (2,)], None)])
def test_zero_d_named_cases(eq, shapes, kind):
    """A dot product and a trace of a product are 0-d arrays under optimize=True; a product of two separate dot
    products and a one-operand trace are scalars; an outer product is no 0-d result at all."""
    rng = np.random.default_rng(0)
    ops = [rng.standard_normal(s) for s in shapes]
    got = gettpy.einsum(eq, *ops, optimize=True)
    if kind is None:
        assert got.shape == (3, 2)
    else:
        assert type(got) is kind and type(np.einsum(eq, *ops, optimize=True)) is kind
    assert type(gettpy.einsum(eq, *ops)) is (np.float64 if kind is not None else np.ndarray)
